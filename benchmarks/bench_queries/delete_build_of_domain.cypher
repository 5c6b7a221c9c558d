// Remove everything a build wrote for a domain (benchmarks start from nothing).
MATCH (n)
WHERE (n:Chunk OR n:Fact OR n:Entity OR n:Concept OR n:Path OR n:Perspective OR n:Question
       OR n:BuildStep) AND n.domain = $domain
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
