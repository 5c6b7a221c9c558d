// Paths with their keys, labels and per-hop reasons (the path's own, else its edges').
UNWIND $uids AS uid
MATCH (p:Path {uid: uid})
RETURN p.uid AS uid, p.signature AS signature, p.concept_keys AS keys, p.labels AS labels,
  coalesce(p.reasons,
    [e IN p.edge_uids | head([()-[r:RELATES {uid: e}]->() | r.reason])]) AS reasons
