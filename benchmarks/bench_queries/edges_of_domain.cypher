// Every RELATES edge of a domain with its endpoint names and its reason (the quoted evidence).
MATCH (a:Concept {domain: $domain})-[r:RELATES]->(b:Concept {domain: $domain})
RETURN coalesce(a.name, a.key) AS source, r.label AS label, coalesce(b.name, b.key) AS target,
       r.reason AS reason
ORDER BY source, label, target
