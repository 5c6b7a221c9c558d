// Every simple directed path (no concept twice) of 1..$max_hops RELATES edges from one concept to
// another, grouped by relation-label signature. The bound is fixed at 3 in the pattern (a path of
// the model has 1-3 edges) and narrowed by $max_hops. $palette maps label -> category.
MATCH (a:Concept {uid: $start})
MATCH (b:Concept {uid: $end})
MATCH p = (a)-[:RELATES*1..3]->(b)
WHERE length(p) <= $max_hops
  AND all(n IN nodes(p) WHERE single(m IN nodes(p) WHERE m = n))
WITH p, relationships(p) AS rels
WITH [r IN rels | r.label] AS labels, {
  keys: [n IN nodes(p) | n.key],
  labels: [r IN rels | r.label],
  reasons: [r IN rels | r.reason],
  edge_uids: [r IN rels | r.uid],
  categories: [r IN rels | coalesce($palette[r.label], r.category)]
} AS path
ORDER BY size(labels), labels, path.keys
WITH labels, collect(path) AS paths
RETURN labels, paths
ORDER BY size(labels), labels
