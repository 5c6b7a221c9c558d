// Remove a domain's concepts and what was built on them (edges, paths, perspectives,
// questions); facts, chunks and entities stay.
CALL () {
  MATCH (n {domain: $domain})
  WHERE (n:Concept OR n:Path OR n:Perspective OR n:Question)
    AND coalesce(n.generation, 0) = $generation
  RETURN collect(n) AS gone
}
CALL () {
  MATCH (f:Fact {domain: $domain})
  REMOVE f.soft_keys, f.soft_probs
}
CALL () {
  // earlier concepts this generation reused (`--extend`): no longer reused, and the facts it
  // added to them leave them
  MATCH (c:Concept {domain: $domain})
  WHERE $generation IN coalesce(c.generations, []) AND coalesce(c.generation, 0) <> $generation
  SET c.generations = [g IN c.generations WHERE g <> $generation]
  WITH c
  OPTIONAL MATCH (:Fact)-[m:IN_CONCEPT {generation: $generation}]->(c)
  DELETE m
}
FOREACH (n IN gone | DETACH DELETE n)
