// Concepts (optionally of one domain) with their edge and question counts.
MATCH (c:Concept)
WHERE $domain IS NULL OR c.domain = $domain
RETURN c.uid AS uid, c.domain AS domain, c.key AS key, c.summary AS summary, c.name AS name,
  COUNT { (c)-[:RELATES]->() } AS out_edges, COUNT { (c)<-[:RELATES]-() } AS in_edges,
  COUNT { (c)<-[:POOL]-(:Question) } AS questions
ORDER BY domain, size(key), key
LIMIT $limit
