// Every RELATES edge of a domain as (from key, label, to key, uid): input of the networkx check.
MATCH (a:Concept)-[r:RELATES]->(b:Concept)
WHERE r.domain = $domain
RETURN a.key AS source, r.label AS label, b.key AS target, r.uid AS uid
