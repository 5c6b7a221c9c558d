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
FOREACH (n IN gone | DETACH DELETE n)
