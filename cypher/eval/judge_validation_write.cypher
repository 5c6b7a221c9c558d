// One judge's validation against one gold file (same judge + same file = same node: the newest
// measurement replaces the older one).
MERGE (v:JudgeValidation {uid: $uid})
SET v += $props
RETURN v.uid AS uid
