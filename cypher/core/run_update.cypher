// Record more about a run without changing its status (flags, failure bookkeeping).
MATCH (r:Run {uid: $uid})
SET r += $props
