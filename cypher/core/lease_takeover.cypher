// Take over a lease whose owner is known to be dead (same host, process gone), only if that
// owner still holds it (another process may have taken it meanwhile).
MATCH (l:Lease {key: $key, owner: $dead_owner})
SET l.owner = $owner, l.run_uid = $run_uid, l.kind = $kind, l.heartbeat = timestamp(),
    l.expires_at = timestamp() + $ttl_ms, l.acquired_at = timestamp()
RETURN count(l) AS taken
