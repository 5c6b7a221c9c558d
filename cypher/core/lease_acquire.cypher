// Take the lease on $key when it is free, expired or already ours, and no live run reads what
// it guards; else report who holds it (or reads it).
// One transaction: the write lock (SET on the node) is taken before the owner and expiry are
// read, so two processes racing for the same key cannot both win; a reader guarding this key
// (`core/lease_guard`) locks the same node, so a reader and a writer cannot both win either.
// Times are the server's clock (timestamp(), ms), so hosts with skewed clocks agree on expiry.
MERGE (l:Lease {key: $key})
ON CREATE SET l.expires_at = 0, l.owner = null
SET l.locked_by = $owner
WITH l, l.owner AS prev_owner, l.expires_at AS prev_expires, l.heartbeat AS prev_heartbeat,
     timestamp() AS now
OPTIONAL MATCH (r:Lease)
WHERE $key IN coalesce(r.guards, []) AND r.owner <> $owner AND r.expires_at >= now
      AND NOT r.owner IN $ignore_readers
WITH l, prev_owner, prev_expires, prev_heartbeat, now,
     collect(CASE WHEN r IS NULL THEN null ELSE {owner: r.owner, run_uid: r.run_uid} END)
       AS readers
WITH l, prev_owner, prev_expires, prev_heartbeat, now, readers,
     (size(readers) = 0 AND (prev_owner IS NULL OR prev_owner = $owner OR prev_expires < now))
       AS take
FOREACH (_ IN CASE WHEN take THEN [1] ELSE [] END |
  SET l.owner = $owner, l.run_uid = $run_uid, l.kind = $kind, l.heartbeat = now,
      l.expires_at = now + $ttl_ms, l.acquired_at = now)
REMOVE l.locked_by
RETURN take AS acquired, prev_owner, prev_expires < now AS prev_expired,
       now - prev_heartbeat AS since_heartbeat_ms, l.run_uid AS run_uid, readers
