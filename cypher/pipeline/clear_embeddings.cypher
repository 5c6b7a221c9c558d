// `--from-stage embeddings`: forget the vectors so they are computed again.
MATCH (f:Fact {domain: $domain})
REMOVE f.embedding, f.embedding_model
