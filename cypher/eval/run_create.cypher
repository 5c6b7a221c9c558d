// Create a run (or find the one being resumed); a judge run points at the run it re-judges.
MERGE (r:Run {uid: $uid})
ON CREATE SET r += $props, r.tokens_in = 0, r.tokens_out = 0, r.calls = 0, r.cached_calls = 0,
              r.cost = 0.0, r.failed = 0
SET r.status = 'running', r.resumed_at = $now
WITH r
OPTIONAL MATCH (src:Run {uid: $source})
FOREACH (_ IN CASE WHEN src IS NULL THEN [] ELSE [1] END | MERGE (r)-[:JUDGES]->(src))
RETURN r {.*} AS run
