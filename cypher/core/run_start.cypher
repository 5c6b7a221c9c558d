// Create a run of any kind, or reopen it for a resumed session: the first session's start time
// and the counters are kept; a judge run points at the run whose answers it judges.
MERGE (r:Run {uid: $uid})
ON CREATE SET r.kind = $kind, r.started_at = $now, r.tokens_in = 0, r.tokens_out = 0,
              r.calls = 0, r.cached_calls = 0, r.cost = 0.0, r.failed = 0
SET r += $props, r.status = 'running', r.resumed_at = $now
WITH r
OPTIONAL MATCH (src:Run {uid: $source})
FOREACH (_ IN CASE WHEN src IS NULL THEN [] ELSE [1] END | MERGE (r)-[:JUDGES]->(src))
RETURN r {.*} AS run
