// `--from-stage evidence`: remove a domain's focused evidence links.
MATCH (q:Question {domain: $domain})-[e:EVIDENCE]->(:Fact)
WHERE coalesce(q.generation, 0) = $generation
DELETE e
