// Benchmark support: labeled RELATES edges of a synthetic domain (parallel edges allowed).
UNWIND $rows AS row
MATCH (a:Concept {uid: row.from})
MATCH (b:Concept {uid: row.to})
MERGE (a)-[r:RELATES {uid: row.uid}]->(b)
  ON CREATE SET r.label = row.label, r.domain = row.domain
