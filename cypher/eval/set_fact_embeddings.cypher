// Store fact embeddings for the vector index `fact_embedding`.
UNWIND $rows AS row
MATCH (f:Fact {uid: row.uid})
CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
SET f.embedding_model = $model
