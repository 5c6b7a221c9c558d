// A run holds what it reads: for each write key it guards ($keys: `build:<domain>`, sorted, so
// two guards lock in the same order), lock that key's lease node and see whether a live
// process other than us holds it (a build, --replace or delete of the domain). When none
// does, the keys are recorded on our own lease ($key); a writer's `core/lease_acquire` then
// finds this live reader and is refused, until our lease is released or expires.
UNWIND $keys AS wkey
MERGE (w:Lease {key: wkey})
ON CREATE SET w.expires_at = 0, w.owner = null
SET w.locked_by = $owner
REMOVE w.locked_by
WITH w, timestamp() AS now
WITH collect(
       CASE WHEN w.owner IS NOT NULL AND w.owner <> $owner AND w.expires_at >= now
                 AND NOT w.owner IN $ignore_owners
            THEN {key: w.key, owner: w.owner, kind: w.kind,
                  since_heartbeat_ms: now - w.heartbeat} END) AS busy
OPTIONAL MATCH (l:Lease {key: $key, owner: $owner})
FOREACH (_ IN CASE WHEN size(busy) = 0 AND l IS NOT NULL THEN [1] ELSE [] END |
  SET l.guards = $keys)
RETURN busy, l IS NOT NULL AS held
