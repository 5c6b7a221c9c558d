// Every question (optionally of one domain) with its links, in file order (id, then domain).
MATCH (q:Question)
WHERE $domain IS NULL OR q.domain = $domain
CALL (q) {
  OPTIONAL MATCH (q)-[r:TARGET|DISTRACTOR]->(p:Path)
  WITH r, p ORDER BY r.pos
  RETURN collect(CASE WHEN r IS NOT NULL THEN {name: r.name, pos: r.pos, tpos: r.tpos,
    target: type(r) = 'TARGET', path: p.uid, reasons: r.reasons} END) AS paths
}
CALL (q) {
  OPTIONAL MATCH (q)-[e:EVIDENCE]->(f:Fact)
  WITH e, f ORDER BY e.rank
  RETURN collect(f.text) AS evidence
}
CALL (q) {
  OPTIONAL MATCH (q)-[r:POOL]->(c:Concept)
  WITH r, c ORDER BY r.pos
  RETURN collect(CASE WHEN r IS NOT NULL THEN {key: r.key, concept: c.uid,
    override: r.override} END) AS pool
}
RETURN q.uid AS uid, q.id AS id, q.domain AS domain, q.theme AS theme, q.text AS text,
  paths, evidence, pool
ORDER BY q.id, q.domain
