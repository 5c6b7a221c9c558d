// Everything scoring needs for one run: per judged answer its question, targets, valid paths,
// its sample index and confidence (answers without variants: sample 0, no confidence),
// the verdicts of this run (as parallel lists: path, present, partial) and claim counts.
MATCH (a:Answer)-[j:JUDGED_IN]->(:Run {uid: $uid})
MATCH (a)-[:FOR]->(q:Question)
WITH a, j, q, [(v:Verdict)-[:OF]->(a) WHERE v.run = $uid | v] AS vs
RETURN q.uid AS question, q.id AS id, q.domain AS domain, q.theme AS theme, q.hop AS hop,
       a.uid AS answer, a.tokens AS tokens, a.tokens_source AS tokens_source,
       coalesce(a.sample, 0) AS sample, a.context_variant AS context_variant,
       a.formulation AS formulation, a.decoder_point AS decoder_point, a.hint_path AS hint_path,
       a.confidence AS confidence,
       a.low_confidence_share AS low_confidence_share,
       [(q)-[:TARGET]->(p:Path) | p.uid] AS targets,
       [(q)-[:TARGET|DISTRACTOR]->(p:Path) | p.uid] AS valid,
       [v IN vs | [(v)-[:ON]->(p:Path) | p.uid][0]] AS v_path,
       [v IN vs | v.present] AS v_present,
       [v IN vs | v.partial] AS v_partial,
       COUNT { (c:Claim)-[:OF]->(a) WHERE c.run = $uid } AS n_claims,
       COUNT { (c:Claim)-[:OF]->(a) WHERE c.run = $uid AND c.supported } AS n_supported,
       j.relevancy AS relevancy, j.relevancy_method AS relevancy_method,
       j.rejected AS rejected, j.duplicates AS duplicates
ORDER BY q.domain, q.id, sample, context_variant
