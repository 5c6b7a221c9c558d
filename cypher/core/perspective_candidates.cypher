// Candidate perspectives: the valid paths (Path nodes) over one concept sequence that share a
// relation at one hop position. `kg perspectives`, the build's stage 7 and `kg validate` all read
// them here. $by = 'label' groups by relation label, 'category' by relation category ($palette:
// label -> category, else the path's or its edge's stored category, else the label). Only hops
// where the relations differ give candidates, so each is a non-empty proper subset of its
// group; a path set that two hops cut out alike is one candidate (`also_at`: the other hops).
// $start / $end (concept keys) and $generation narrow the paths; null means any.
MATCH (p:Path {domain: $domain})
WHERE ($start IS NULL OR p.concept_keys[0] = $start)
  AND ($end IS NULL OR p.concept_keys[size(p.concept_keys) - 1] = $end)
  AND ($generation IS NULL OR coalesce(p.generation, 0) = $generation)
  AND p.hops <= $max_hops
WITH p, [i IN range(0, size(p.labels) - 1) | coalesce($palette[p.labels[i]], p.categories[i],
  head([()-[r:RELATES {uid: p.edge_uids[i]}]->() | r.category]))] AS cats
ORDER BY p.signature
WITH p.concept_keys AS seq, coalesce(p.generation, 0) AS generation,
     collect({path: p, cats: cats}) AS paths
// Where the endpoints are joined by several concept sequences, each sequence's whole path set
// is a candidate too (hop -1 here, 0 returned): never selected, shown for imported benchmarks
// whose questions span sequences.
WITH seq[0] AS a, seq[size(seq) - 1] AS b, generation, collect({seq: seq, paths: paths}) AS seqs
UNWIND seqs AS g
WITH g.seq AS seq, generation, g.paths AS paths, size(seqs) AS sequences
UNWIND range(CASE WHEN sequences > 1 THEN -1 ELSE 0 END, size(seq) - 2) AS hop
WITH seq, generation, paths, hop, [x IN paths | {x: x, focus: CASE
  WHEN hop < 0 THEN 'whole sequence'
  WHEN $by = 'category' THEN coalesce(x.cats[hop], x.path.labels[hop])
  ELSE x.path.labels[hop] END}] AS rows
WITH seq, generation, paths, hop, rows,
     reduce(s = [], r IN rows | CASE WHEN r.focus IN s THEN s ELSE s + r.focus END) AS foci
WHERE size(foci) > 1 OR hop < 0
UNWIND foci AS focus
WITH seq, generation, size(paths) AS group_size, hop, size(foci) AS foci_at_hop, focus,
     [r IN rows WHERE r.focus = focus | r.x] AS members
ORDER BY hop
WITH seq, generation, group_size, [m IN members | m.path.uid] AS uids,
     collect({hop: hop, focus: focus, foci_at_hop: foci_at_hop}) AS at,
     collect(members)[0] AS members
RETURN seq, generation, group_size, at[0].hop + 1 AS hop, at[0].focus AS focus,
       at[0].foci_at_hop AS foci_at_hop, [a IN tail(at) | a.hop + 1] AS also_at,
       [m IN members | {uid: m.path.uid, keys: m.path.concept_keys, labels: m.path.labels,
        reasons: coalesce(m.path.reasons, [l IN m.path.labels | null]),
        edge_uids: coalesce(m.path.edge_uids, []), categories: m.cats}] AS paths
ORDER BY generation, size(seq), seq, hop, focus
