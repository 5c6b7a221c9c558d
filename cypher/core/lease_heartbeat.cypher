// Extend our leases; `held` false for a key means it was taken over (we were presumed dead).
UNWIND $keys AS key
OPTIONAL MATCH (l:Lease {key: key, owner: $owner})
FOREACH (_ IN CASE WHEN l IS NULL THEN [] ELSE [1] END |
  SET l.heartbeat = timestamp(), l.expires_at = timestamp() + $ttl_ms)
RETURN key, l IS NOT NULL AS held
