// Extend our lease; 0 rows updated means it was taken over (we were presumed dead).
OPTIONAL MATCH (l:Lease {key: $key, owner: $owner})
FOREACH (_ IN CASE WHEN l IS NULL THEN [] ELSE [1] END |
  SET l.heartbeat = timestamp(), l.expires_at = timestamp() + $ttl_ms)
RETURN l IS NOT NULL AS held
