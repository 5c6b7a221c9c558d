// Stage 9 input: each question with its target paths' reasons and the facts of its concepts.
MATCH (q:Question {domain: $domain})
WHERE coalesce(q.generation, 0) = $generation
CALL (q) {
  MATCH (q)-[:TARGET]->(t:Path)
  WITH t ORDER BY t.signature
  RETURN collect(t.reasons) AS reasons, collect(t.signature) AS signatures
}
CALL (q) {
  MATCH (q)-[:POOL]->(c:Concept)<-[:IN_CONCEPT]-(f:Fact)
  WITH c, f ORDER BY c.key, f.text  // a fixed order: the result must not depend on history
  RETURN collect({uid: f.uid, text: f.text, concept: c.key}) AS candidates
}
RETURN q.uid AS uid, q.text AS text, reasons, signatures, candidates
ORDER BY q.id
