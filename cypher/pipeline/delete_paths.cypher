// Remove a domain's paths, perspectives and questions (rebuilt from new edges).
MATCH (n {domain: $domain})
WHERE (n:Path OR n:Perspective OR n:Question) AND coalesce(n.generation, 0) = $generation
DETACH DELETE n
