// Paths (one per domain+signature, shared by every question that names it) and their endpoints.
UNWIND $rows AS row
MERGE (p:Path {uid: row.uid})
  ON CREATE SET p.domain = row.domain, p.signature = row.signature, p.hops = row.hops,
    p.labels = row.labels, p.concept_keys = row.concept_keys, p.edge_uids = row.edge_uids,
    p.reasons = row.reasons, p.provenance = row.provenance
WITH p, row
MATCH (s:Concept {uid: row.start})
MATCH (e:Concept {uid: row.end})
MERGE (p)-[:STARTS]->(s)
MERGE (p)-[:ENDS]->(e)
