// Every embedded fact of a domain with its first chunk position (clustering, duplicates).
MATCH (f:Fact {domain: $domain})-[:FROM]->(c:Chunk)
WHERE f.embedding IS NOT NULL
WITH f, min(c.source + '#' + toString(1000000 + c.ordinal)) AS position
RETURN f.uid AS uid, f.text AS text, f.embedding AS embedding, position
ORDER BY position, f.uid
