// Uids of a domain's RELATES edges (decides whether paths must be re-enumerated).
MATCH (:Concept {domain: $domain})-[r:RELATES]->(:Concept)
RETURN r.uid AS uid
