// Remove a domain's paths, perspectives and questions (rebuilt from new edges).
MATCH (n {domain: $domain})
WHERE n:Path OR n:Perspective OR n:Question
DETACH DELETE n
