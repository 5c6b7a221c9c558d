// kg validate: every labeled edge of a domain with its endpoints' keys and its reason.
MATCH (a:Concept {domain: $domain})-[r:RELATES]->(b:Concept)
RETURN r.uid AS uid, a.key AS source, r.label AS label, b.key AS target, r.reason AS reason
ORDER BY a.key, b.key, r.label
