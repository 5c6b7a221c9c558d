// One question (by file id, optionally in one domain) with its paths, evidence and pool.
MATCH (q:Question {id: $id})
WHERE $domain IS NULL OR q.domain = $domain
CALL (q) {
  OPTIONAL MATCH (q)-[r:TARGET|DISTRACTOR]->(p:Path)
  WITH r, p ORDER BY r.pos
  RETURN collect(CASE WHEN r IS NOT NULL THEN {role: toLower(type(r)), name: r.name, pos: r.pos,
    signature: p.signature, hops: p.hops, keys: p.concept_keys, labels: p.labels,
    reasons: coalesce(r.reasons, p.reasons)} END) AS paths
}
CALL (q) {
  OPTIONAL MATCH (q)-[e:EVIDENCE]->(f:Fact)
  WITH e, f ORDER BY e.rank
  RETURN collect(f.text) AS evidence
}
CALL (q) {
  OPTIONAL MATCH (q)-[r:POOL]->(c:Concept)
  WITH r, c ORDER BY r.pos
  RETURN collect(CASE WHEN r IS NOT NULL THEN {key: r.key, concept: c.key, summary: c.summary}
    END) AS pool
}
RETURN q.uid AS uid, q.id AS id, q.domain AS domain, q.theme AS theme, q.text AS text,
  q.hop AS hop, paths, evidence, pool
ORDER BY q.domain
