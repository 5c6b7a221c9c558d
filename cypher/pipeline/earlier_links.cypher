// `kg build --extend`: what the domain's earlier generations already link: their edges (uids)
// and candidate pairs (concept keys), which a later generation never writes again.
MATCH (a:Concept {domain: $domain})-[r:RELATES|CANDIDATE]->(b:Concept)
WHERE coalesce(r.generation, a.generation, 0) < $generation
RETURN type(r) AS kind, r.uid AS uid, a.key AS a, b.key AS b
