// kg validate: every question of a domain with its valid paths (targets and distractors) and
// its focused evidence (fact texts with their domain).
MATCH (q:Question {domain: $domain})
CALL (q) {
  OPTIONAL MATCH (q)-[t:TARGET]->(p:Path)
  WITH p ORDER BY t.pos
  RETURN collect(CASE WHEN p IS NULL THEN null ELSE
    {uid: p.uid, hops: p.hops, labels: p.labels, keys: p.concept_keys,
     signature: p.signature} END) AS targets
}
CALL (q) {
  OPTIONAL MATCH (q)-[d:DISTRACTOR]->(p:Path)
  WITH p ORDER BY d.pos
  RETURN collect(CASE WHEN p IS NULL THEN null ELSE
    {uid: p.uid, hops: p.hops, labels: p.labels, keys: p.concept_keys,
     signature: p.signature} END) AS distractors
}
CALL (q) {
  OPTIONAL MATCH (q)-[e:EVIDENCE]->(f:Fact)
  WITH f ORDER BY e.rank
  RETURN collect(CASE WHEN f IS NULL THEN null ELSE {text: f.text, domain: f.domain} END)
         AS evidence
}
CALL (q) {
  OPTIONAL MATCH (q)-[:POOL]->(c:Concept)
  RETURN collect(c.key) AS pool
}
RETURN q.uid AS uid, q.id AS id, q.text AS text, q.hop AS hop, targets, distractors,
       evidence, pool
ORDER BY q.id
