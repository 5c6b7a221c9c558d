// Stage 5 input: every clustered fact with its concept, chunk positions, entities and soft
// memberships (the scores are computed set-wise over these rows with numpy).
MATCH (f:Fact {domain: $domain})-[:IN_CONCEPT]->(c:Concept)
WHERE $generation IN coalesce(c.generations, [coalesce(c.generation, 0)])  // its own and reused concepts
CALL (f) {
  MATCH (f)-[:FROM]->(ch:Chunk)
  RETURN collect([ch.source, ch.ordinal]) AS positions
}
CALL (f) {
  OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
  RETURN collect(e.uid) AS entities
}
RETURN f.uid AS uid, c.key AS concept, coalesce(c.generation, 0) <> $generation AS reused, positions, entities,
       coalesce(f.soft_keys, []) AS soft_keys, coalesce(f.soft_probs, []) AS soft_probs
