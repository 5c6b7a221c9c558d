// The first concept number of a build generation: after every earlier generation's concept
// (`--extend`), so keys, and the concept, edge and path uids hashed from them, never collide.
OPTIONAL MATCH (c:Concept {domain: $domain})
WHERE coalesce(c.generation, 0) < $generation
RETURN coalesce(max(toInteger(split(c.key, '_')[-1])), -1) + 1 AS offset
