// Close a build run with its status, token totals and per-stage counts (JSON).
MATCH (r:Run {uid: $uid})
SET r.status = $status, r.ended_at = $now, r.tokens_in = $tokens_in,
    r.tokens_out = $tokens_out, r.summary = $summary, r.error = $error
