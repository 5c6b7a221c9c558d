// How many simple directed paths of 1..$max_hops edges a domain has (before the group rules).
MATCH p = (:Concept {domain: $domain})-[:RELATES*1..3]->(:Concept)
WHERE length(p) <= $max_hops
  AND all(r IN relationships(p) WHERE r.domain = $domain)
  AND all(i IN range(0, length(p) - 1)
          WHERE all(j IN range(i + 1, length(p)) WHERE nodes(p)[i] <> nodes(p)[j]))
RETURN length(p) AS hops, count(*) AS paths
ORDER BY hops
