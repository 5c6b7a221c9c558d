// Close a session of a run: final status, end time, and what the session measured.
MATCH (r:Run {uid: $uid})
SET r += $props, r.status = $status, r.ended_at = $now
RETURN r {.*} AS run
