// Full-text search over concept key, summary and topic words (index concept_text).
CALL db.index.fulltext.queryNodes('concept_text', $text) YIELD node, score
WHERE $domain IS NULL OR node.domain = $domain
RETURN node.uid AS uid, node.domain AS domain, node.key AS key, node.summary AS summary, node.name AS name,
  COUNT { (node)-[:RELATES]->() } AS out_edges, COUNT { (node)<-[:RELATES]-() } AS in_edges,
  COUNT { (node)<-[:POOL]-(:Question) } AS questions, score
ORDER BY score DESC
LIMIT $limit
