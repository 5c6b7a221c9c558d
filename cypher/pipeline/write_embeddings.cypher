// Stage 3: normalized vectors on Fact nodes (vector index `fact_embedding`).
UNWIND $rows AS row
MATCH (f:Fact {uid: row.uid})
SET f.embedding = row.embedding, f.embedding_model = $model
