// Forget a domain's candidate pairs before writing the new set.
MATCH (a:Concept {domain: $domain})-[r:CANDIDATE]->(:Concept)
WHERE coalesce(r.generation, a.generation, 0) = $generation
DELETE r
