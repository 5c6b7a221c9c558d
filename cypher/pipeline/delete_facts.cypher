// `--from-stage facts`: remove a domain's facts and entities (chunks stay).
MATCH (n {domain: $domain})
WHERE n:Fact OR n:Entity
DETACH DELETE n
