// Add one batch's token and call counts to the run totals (same transaction as the batch).
MATCH (r:Run {uid: $uid})
SET r.tokens_in = coalesce(r.tokens_in, 0) + $tokens_in,
    r.tokens_out = coalesce(r.tokens_out, 0) + $tokens_out,
    r.calls = coalesce(r.calls, 0) + $calls,
    r.cached_calls = coalesce(r.cached_calls, 0) + $cached_calls,
    r.cost = coalesce(r.cost, 0.0) + $cost
