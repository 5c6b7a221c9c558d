// Stage 6 input: the kept candidate pairs with both concepts' names, summaries, key evidence.
MATCH (a:Concept {domain: $domain})-[p:CANDIDATE]->(b:Concept)
WHERE coalesce(p.generation, a.generation, 0) = $generation
CALL (a) {
  MATCH (f:Fact)-[r:IN_CONCEPT]->(a)
  WHERE r.rank IS NOT NULL
  WITH f ORDER BY r.rank
  RETURN collect(f.text)[..$limit] AS a_facts, collect(f.embedding)[..$limit] AS a_vecs
}
CALL (b) {
  MATCH (f:Fact)-[r:IN_CONCEPT]->(b)
  WHERE r.rank IS NOT NULL
  WITH f ORDER BY r.rank
  RETURN collect(f.text)[..$limit] AS b_facts, collect(f.embedding)[..$limit] AS b_vecs
}
CALL (a) {
  MATCH (a)<-[:IN_CONCEPT]-(:Fact)-[:FROM]->(c:Chunk)
  RETURN avg(c.ordinal) AS a_pos
}
CALL (b) {
  MATCH (b)<-[:IN_CONCEPT]-(:Fact)-[:FROM]->(c:Chunk)
  RETURN avg(c.ordinal) AS b_pos
}
RETURN a.uid AS a_uid, a.key AS a_key, a.name AS a_name, a.summary AS a_summary,
       b.uid AS b_uid, b.key AS b_key, b.name AS b_name, b.summary AS b_summary,
       p.score AS score, a_facts, a_vecs, b_facts, b_vecs, a_pos, b_pos
ORDER BY a.key, b.key
