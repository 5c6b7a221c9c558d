// Stage 7: Path nodes with their endpoints.
UNWIND $rows AS row
MATCH (a:Concept {uid: row.start_uid}), (b:Concept {uid: row.end_uid})
MERGE (p:Path {uid: row.uid})
SET p.domain = row.domain, p.signature = row.signature, p.hops = row.hops,
    p.labels = row.labels, p.categories = row.categories, p.concept_keys = row.concept_keys,
    p.edge_uids = row.edge_uids, p.reasons = row.reasons, p.provenance = row.provenance,
    p.generation = row.generation
MERGE (p)-[s:STARTS]->(a)
SET s.provenance = row.provenance
MERGE (p)-[e:ENDS]->(b)
SET e.provenance = row.provenance
