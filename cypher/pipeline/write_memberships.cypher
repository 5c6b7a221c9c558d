// Stage 4: facts in their concept (prob, key-evidence rank) and their soft membership in all.
UNWIND $rows AS row
MATCH (f:Fact {uid: row.fact})
SET f.soft_keys = row.soft_keys, f.soft_probs = row.soft_probs
WITH f, row
WHERE row.concept IS NOT NULL
MATCH (c:Concept {uid: row.concept})
MERGE (f)-[r:IN_CONCEPT]->(c)
SET r.prob = row.prob, r.rank = row.rank, r.provenance = $provenance,
    r.generation = $generation
