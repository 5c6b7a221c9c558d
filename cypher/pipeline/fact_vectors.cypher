// Every embedded fact of a domain with its first chunk position (clustering, duplicates).
MATCH (f:Fact {domain: $domain})-[:FROM]->(c:Chunk)
WHERE f.embedding IS NOT NULL
WITH f, min(c.source + '#' + toString(1000000 + c.ordinal)) AS position
RETURN f.uid AS uid, f.text AS text, f.embedding AS embedding, position
// ties broken by text, not uid: uids hash the domain name, and UMAP depends on input order
ORDER BY position, f.text, f.uid
