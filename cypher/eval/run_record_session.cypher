// Append one session's outcome to a run's history (kept across reruns: a rerun that fixes the
// failures does not erase that they happened). $session is a JSON text.
MATCH (r:Run {uid: $uid})
SET r.sessions = coalesce(r.sessions, []) + [$session],
    r.failed_total = coalesce(r.failed_total, 0) + $failed
RETURN size(r.sessions) AS sessions, r.failed_total AS failed_total
