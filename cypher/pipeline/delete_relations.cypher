// `--from-stage relations`: remove a domain's labeled edges.
MATCH (:Concept {domain: $domain})-[r:RELATES]->(:Concept)
DELETE r
