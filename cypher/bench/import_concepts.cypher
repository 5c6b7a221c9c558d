// Concepts (one per domain+key). Existing concepts keep their properties: they are canonical and
// a line that disagrees keeps its version on its POOL link.
UNWIND $rows AS row
MERGE (c:Concept {uid: row.uid})
  ON CREATE SET c.domain = row.domain, c.key = row.key, c.summary = row.summary,
    c.topic_words = row.topic_words, c.text = row.text, c.provenance = row.provenance
WITH c, row
MATCH (d:Domain {name: row.domain})
MERGE (c)-[:IN_DOMAIN]->(d)
