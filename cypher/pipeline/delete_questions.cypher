// `--from-stage questions`: remove a domain's questions (perspectives stay).
MATCH (q:Question {domain: $domain})
DETACH DELETE q
