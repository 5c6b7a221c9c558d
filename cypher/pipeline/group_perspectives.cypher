// Stage 7: perspectives = paths over the same concept sequence that share an explanatory focus:
// the relation categories at the hops where the labels differ (the relation labels there when
// every path has the same categories). A group is kept when some valid path lies outside it.
MATCH (p:Path {domain: $domain})
WHERE coalesce(p.generation, 0) = $generation
WITH p ORDER BY p.signature  // fixed member order (uids hash the domain name)
WITH p.concept_keys AS seq, collect(p) AS paths
WITH seq, paths, [q IN paths | q.uid] AS all_uids, [i IN range(0, size(seq) - 2)
  WHERE size(reduce(s = [], q IN paths |
    CASE WHEN q.labels[i] IN s THEN s ELSE s + q.labels[i] END)) > 1] AS varying
WITH seq, all_uids, [q IN paths | {uid: q.uid, cat: [i IN varying | q.categories[i]],
                                   lab: [i IN varying | q.labels[i]]}] AS rows
WITH seq, all_uids, rows,
     size(reduce(s = [], r IN rows | CASE WHEN r.cat IN s THEN s ELSE s + [r.cat] END)) AS n_cat
UNWIND rows AS r
WITH seq, all_uids, CASE WHEN n_cat > 1 THEN 'category' ELSE 'label' END AS level,
     CASE WHEN n_cat > 1 THEN r.cat ELSE r.lab END AS focus, r.cat AS categories, r.uid AS uid
WITH seq, all_uids, level, focus, categories, collect(uid) AS targets
WHERE size(targets) < size(all_uids)
RETURN seq, level, focus, categories, targets,
       [u IN all_uids WHERE NOT u IN targets] AS distractors
ORDER BY size(seq), seq, focus
