// Questions: a re-import of the same id updates them in place.
UNWIND $rows AS row
MERGE (q:Question {uid: row.uid})
  ON CREATE SET q.provenance = row.provenance
SET q.id = row.id, q.domain = row.domain, q.theme = row.theme, q.text = row.text, q.hop = row.hop
WITH q, row
MATCH (d:Domain {name: row.domain})
MERGE (q)-[:IN_DOMAIN]->(d)
