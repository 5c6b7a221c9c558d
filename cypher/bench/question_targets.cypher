// Questions (of the domains in $domains, or all when it is null) with their target paths' uids and the
// concept sequences and generations those paths run over: the perspective fidelity report.
MATCH (q:Question)-[:TARGET]->(p:Path)
WHERE $domains IS NULL OR q.domain IN $domains
WITH q, p ORDER BY p.uid
RETURN q.uid AS uid, q.id AS id, q.domain AS domain, q.theme AS theme,
       collect(p.uid) AS targets, max(p.hops) AS hop,
       collect(DISTINCT p.concept_keys) AS seqs,
       collect(DISTINCT coalesce(p.generation, 0)) AS generations
ORDER BY q.domain, q.id
