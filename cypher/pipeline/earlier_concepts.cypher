// `kg build --extend`: the concepts of a domain's earlier generations, with their member facts
// (to reuse one a new cluster reproduces) and their names (never given again).
MATCH (c:Concept {domain: $domain})
WHERE coalesce(c.generation, 0) < $generation
OPTIONAL MATCH (f:Fact)-[:IN_CONCEPT]->(c)
RETURN c.uid AS uid, c.key AS key, c.name AS name, collect(f.uid) AS facts
ORDER BY toInteger(split(c.key, '_')[-1]), c.key
