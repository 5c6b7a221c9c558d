// PERSPECTRA runs (all, or the given uids), oldest first.
MATCH (r:Run {kind: 'perspectra'})
WHERE $uids IS NULL OR r.uid IN $uids
RETURN r {.*} AS run
ORDER BY r.started_at, r.uid
