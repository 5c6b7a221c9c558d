// `--from-stage questions`: remove a domain's questions (perspectives stay).
MATCH (q:Question {domain: $domain})
WHERE coalesce(q.generation, 0) = $generation
DETACH DELETE q
