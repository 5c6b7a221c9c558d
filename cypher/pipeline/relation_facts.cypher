// Offline relations: every fact of a domain (clustered or not) with its first chunk, so that
// adjacent facts of one chunk can be found.
MATCH (f:Fact {domain: $domain})-[:FROM]->(c:Chunk)
WITH f, c ORDER BY c.source, c.ordinal
WITH f, head(collect(c)) AS c
RETURN f.uid AS uid, f.text AS text, c.uid AS chunk, c.text AS chunk_text,
       c.source AS source, c.ordinal AS ordinal
ORDER BY source, ordinal, text, uid  // not by uid alone: uids hash the domain name
