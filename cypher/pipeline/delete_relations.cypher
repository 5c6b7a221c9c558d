// `--from-stage relations`: remove a domain's labeled edges.
MATCH (a:Concept {domain: $domain})-[r:RELATES]->(:Concept)
WHERE coalesce(r.generation, a.generation, 0) = $generation
DELETE r
