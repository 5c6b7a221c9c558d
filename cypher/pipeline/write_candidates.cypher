// Stage 5: candidate concept pairs with their score parts (from the lower to the higher key).
UNWIND $rows AS row
MATCH (a:Concept {uid: row.a}), (b:Concept {uid: row.b})
MERGE (a)-[r:CANDIDATE]->(b)
SET r.score = row.score, r.s_ent = row.s_ent, r.s_prox = row.s_prox, r.s_sem = row.s_sem,
    r.shared_entities = row.shared_entities, r.near_fact_pairs = row.near_fact_pairs,
    r.domain = row.domain, r.provenance = row.provenance, r.generation = $generation
