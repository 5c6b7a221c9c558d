// Stage 7: simple directed paths of 1..$max_hops RELATES edges, grouped by concept sequence and
// kept by the group rules (1 hop: >= $one_hop_min parallel relations; multi-hop: between
// $multi_min and $multi_max relation combinations).
// A generation's paths run over its concepts (its own and the earlier ones it reuses,
// `kg build --extend`) and over its edges and the earlier edges between those concepts, never a
// later generation's; a sequence with no edge of this generation is an earlier one's, and a
// path an earlier generation wrote stays its own.
MATCH p = (a:Concept {domain: $domain})-[:RELATES*1..3]->(:Concept)
WHERE length(p) <= $max_hops
  AND all(n IN nodes(p)
          WHERE $generation IN coalesce(n.generations, [coalesce(n.generation, 0)]))
  AND all(r IN relationships(p)
          WHERE r.domain = $domain
            AND coalesce(r.generation, startNode(r).generation, 0) <= $generation)
  AND all(i IN range(0, length(p) - 1)
          WHERE all(j IN range(i + 1, length(p)) WHERE nodes(p)[i] <> nodes(p)[j]))
WITH [n IN nodes(p) | n.key] AS keys, relationships(p) AS rels
WITH keys, rels,
     any(r IN rels WHERE coalesce(r.generation, startNode(r).generation, 0) = $generation)
       AS fresh
WHERE fresh OR NOT EXISTS {
  MATCH (x:Path {domain: $domain})
  WHERE x.edge_uids = [r IN rels | r.uid] AND coalesce(x.generation, 0) < $generation
}
WITH keys, collect(fresh) AS fresh, collect({
  labels: [r IN rels | r.label],
  categories: [r IN rels | coalesce(r.category, r.label)],
  edge_uids: [r IN rels | r.uid],
  reasons: [r IN rels | r.reason]
}) AS paths
WHERE any(f IN fresh WHERE f)
WITH keys, paths, size(keys) - 1 AS hops
WHERE (hops = 1 AND size(paths) >= $one_hop_min)
   OR (hops > 1 AND size(paths) >= $multi_min AND size(paths) <= $multi_max)
RETURN keys, hops, paths
ORDER BY hops, keys
