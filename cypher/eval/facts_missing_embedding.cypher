// Facts of a domain that have no embedding yet (or one from another model).
MATCH (f:Fact {domain: $domain})
WHERE f.embedding IS NULL OR coalesce(f.embedding_model, '') <> $model
RETURN f.uid AS uid, f.text AS text
ORDER BY f.uid
