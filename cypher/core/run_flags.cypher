// Failure bookkeeping of a build run: items that failed (after every retry) and whether later
// stages were allowed to run on the partial input (--allow-partial).
MATCH (r:Run {uid: $uid})
SET r.allow_partial = $allow_partial, r.failed_items = $failed_items,
    r.failed_reasons = $failed_reasons
