// Paths between two concepts grouped into candidate perspectives by relation category: each hop
// counts as its palette category ($palette: label -> category, else the edge's stored category),
// or its label where no category is known. Consecutive hops of one category collapse, so a chain
// of causal steps is one causal perspective.
MATCH (a:Concept {uid: $start})
MATCH (b:Concept {uid: $end})
MATCH p = (a)-[:RELATES*1..3]->(b)
WHERE length(p) <= $max_hops
  AND all(n IN nodes(p) WHERE single(m IN nodes(p) WHERE m = n))
WITH p, relationships(p) AS rels
WITH p, rels, [r IN rels | coalesce($palette[r.label], r.category, r.label)] AS focus
WITH p, rels, focus,
  [i IN range(0, size(focus) - 1) WHERE i = 0 OR focus[i] <> focus[i - 1] | focus[i]] AS group_key
WITH group_key, {
  keys: [n IN nodes(p) | n.key],
  labels: [r IN rels | r.label],
  reasons: [r IN rels | r.reason],
  edge_uids: [r IN rels | r.uid],
  categories: [r IN rels | coalesce($palette[r.label], r.category)]
} AS path
ORDER BY size(path.labels), path.labels, path.keys
WITH group_key, collect(path) AS paths
RETURN group_key, paths
ORDER BY size(paths) DESC, group_key
