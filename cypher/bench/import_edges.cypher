// Labeled edges; the label is a property so it is always a parameter, never query text.
UNWIND $rows AS row
MATCH (a:Concept {uid: row.from})
MATCH (b:Concept {uid: row.to})
MERGE (a)-[r:RELATES {uid: row.uid}]->(b)
  ON CREATE SET r.label = row.label, r.reason = row.reason, r.domain = row.domain,
    r.provenance = row.provenance
SET r.category = coalesce(row.category, r.category)
