// Every simple directed path of 1..3 RELATES edges between every concept pair of a domain, as
// path signatures (`a -- L --> b ...`) collected per start concept: one record per start keeps
// the transfer cheap (per-record decoding dominates when each path is its own record). Group by
// the node, not by its key: reading the key per path triples the time.
MATCH p = (a:Concept {domain: $domain})-[:RELATES*1..3]->(b:Concept)
WHERE a <> b AND all(n IN nodes(p) WHERE single(m IN nodes(p) WHERE m = n))
WITH a, collect(reduce(s = head(nodes(p)).key, i IN range(0, length(p) - 1) |
  s + ' -- ' + relationships(p)[i].label + ' --> ' + nodes(p)[i + 1].key)) AS signatures
RETURN a.key AS source, signatures
