// Benchmark support: bare concepts of a synthetic domain.
UNWIND $rows AS row
MERGE (c:Concept {uid: row.uid})
  ON CREATE SET c.domain = row.domain, c.key = row.key
