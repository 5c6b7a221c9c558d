// Facts of a domain without a vector from the configured model (per-item resume of stage 3).
MATCH (f:Fact {domain: $domain})
WHERE f.embedding IS NULL OR f.embedding_model <> $model
RETURN f.uid AS uid, f.text AS text
ORDER BY f.uid
