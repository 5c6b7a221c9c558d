// A PERSPECTRA run record (kind 'perspectra'); started_at is kept from the first attempt.
MERGE (r:Run {uid: $uid})
SET r += $props, r.started_at = coalesce(r.started_at, $started_at)
RETURN r.uid AS uid
