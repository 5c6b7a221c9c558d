// Concepts with this key (in one domain, or in every domain).
MATCH (c:Concept {key: $key})
WHERE $domain IS NULL OR c.domain = $domain
RETURN c.uid AS uid, c.domain AS domain, c.key AS key, c.summary AS summary, c.name AS name, 1.0 AS score,
  COUNT { (c)-[:RELATES]->() } AS out_edges, COUNT { (c)<-[:RELATES]-() } AS in_edges,
  COUNT { (c)<-[:POOL]-(:Question) } AS questions
ORDER BY domain
