// Nearest facts to a query vector through the vector index, kept to one domain.
CALL db.index.vector.queryNodes('fact_embedding', $candidates, $vector) YIELD node, score
WHERE node.domain = $domain
RETURN node.uid AS uid, node.text AS text, score
ORDER BY score DESC
LIMIT $k
