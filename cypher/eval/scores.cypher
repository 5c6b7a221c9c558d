// Everything scoring needs for one run: per judged answer its question, targets, verdicts of
// this run and claim counts of this run.
MATCH (a:Answer)-[j:JUDGED_IN]->(r:Run {uid: $uid})
MATCH (a)-[:FOR]->(q:Question)
RETURN q.uid AS question, q.id AS id, q.domain AS domain, q.theme AS theme, q.hop AS hop,
       a.uid AS answer, a.tokens AS tokens, a.tokens_source AS tokens_source,
       [(q)-[:TARGET]->(p:Path) | p.uid] AS targets,
       [(q)-[:TARGET|DISTRACTOR]->(p:Path) | p.uid] AS valid,
       [(v:Verdict)-[:OF]->(a) WHERE v.run = $uid
        | {path: [(v)-[:ON]->(p:Path) | p.uid][0], present: v.present, partial: v.partial}]
         AS verdicts,
       COUNT { (c:Claim)-[:OF]->(a) WHERE c.run = $uid } AS n_claims,
       COUNT { (c:Claim)-[:OF]->(a) WHERE c.run = $uid AND c.supported } AS n_supported,
       j {.*} AS judged
ORDER BY q.domain, q.id
