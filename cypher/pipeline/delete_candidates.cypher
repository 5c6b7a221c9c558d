// Forget a domain's candidate pairs before writing the new set.
MATCH (:Concept {domain: $domain})-[r:CANDIDATE]->(:Concept)
DELETE r
