// Every chunk of a domain in source order.
MATCH (c:Chunk {domain: $domain})
RETURN c.uid AS uid, c.text AS text, c.source AS source, c.ordinal AS ordinal
ORDER BY c.source, c.ordinal
