// Questions to evaluate, in a stable order, with their valid paths (targets and distractors,
// in file order; a question's own reasons override the shared path's), focused evidence and the
// summaries and topic words of every concept its paths pass through, and the domain's stored
// relation palette (JSON, if any: it says what each label means); `imported`: the question
// came from a published file (its provenance), not from `kg build`.
MATCH (q:Question)
WHERE ($domains IS NULL OR q.domain IN $domains)
  AND ($hops IS NULL OR q.hop IN $hops)
  AND ($uids IS NULL OR q.uid IN $uids)
WITH q ORDER BY q.domain, q.id
LIMIT coalesce($limit, 1000000000)
CALL (q) {
  OPTIONAL MATCH (q)-[r:TARGET|DISTRACTOR]->(p:Path)
  WITH r, p ORDER BY r.pos
  RETURN collect(CASE WHEN p IS NULL THEN NULL ELSE {
    uid: p.uid, signature: p.signature, hops: p.hops, labels: p.labels,
    concept_keys: p.concept_keys, reasons: coalesce(r.reasons, p.reasons),
    target: type(r) = 'TARGET', name: r.name, pos: r.pos} END) AS paths
}
CALL (q) {
  OPTIONAL MATCH (q)-[e:EVIDENCE]->(f:Fact)
  WITH e, f ORDER BY e.rank
  RETURN collect(CASE WHEN f IS NULL THEN NULL ELSE {uid: f.uid, text: f.text} END) AS evidence
}
CALL (q) {
  OPTIONAL MATCH (q)-[:TARGET|DISTRACTOR]->(p:Path)
  UNWIND coalesce(p.concept_keys, []) AS key
  WITH DISTINCT key
  OPTIONAL MATCH (c:Concept {domain: q.domain, key: key})
  RETURN collect({key: key, summary: c.summary, name: c.name, topic_words: c.topic_words}) AS concepts
}
OPTIONAL MATCH (d:Domain {name: q.domain})
RETURN q.uid AS uid, q.id AS id, q.domain AS domain, q.theme AS theme, q.text AS text,
       q.hop AS hop, paths, evidence, concepts,
       coalesce(q.provenance CONTAINS '"stage": "import"', false) AS imported,
       d.palette AS palette
