// The batches of a run or build (its scope) a session has not closed, oldest first.
MATCH (b:LLMBatch {scope: $scope})
WHERE NOT coalesce(b.closed, false)
RETURN b {.*} AS batch
ORDER BY b.created_at, b.token
