// Uids of a domain's RELATES edges (decides whether paths must be re-enumerated).
MATCH (a:Concept {domain: $domain})-[r:RELATES]->(:Concept)
WHERE coalesce(r.generation, a.generation, 0) = $generation
RETURN r.uid AS uid
