// Stage 6: labeled directed edges between concepts (label validated in Python, a property).
UNWIND $rows AS row
MATCH (a:Concept {uid: row.from_uid}), (b:Concept {uid: row.to_uid})
MERGE (a)-[r:RELATES {uid: row.uid}]->(b)
SET r.label = row.label, r.category = row.category, r.reason = row.reason,
    r.domain = row.domain, r.provenance = row.provenance, r.score = row.score,
    r.evidence = row.evidence, r.generation = $generation
