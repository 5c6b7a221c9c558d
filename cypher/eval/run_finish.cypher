// Close a session of a run: final status, errors of this session, end time.
MATCH (r:Run {uid: $uid})
SET r.status = $status, r.ended_at = $now, r.errors = $errors, r.failed = $failed
RETURN r {.*} AS run
