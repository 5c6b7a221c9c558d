// Stage 1: chunk nodes in their domain, keeping source and order.
UNWIND $rows AS row
MERGE (d:Domain {name: row.domain})
MERGE (c:Chunk {uid: row.uid})
ON CREATE SET c.provenance = row.provenance, c.generation = row.generation
SET c.domain = row.domain, c.source = row.source, c.ordinal = row.ordinal, c.text = row.text,
    c.subject = row.subject, c.external_id = row.external_id
MERGE (c)-[i:IN_DOMAIN]->(d)
ON CREATE SET i.provenance = row.provenance
