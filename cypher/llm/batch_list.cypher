// The batches of a run or build (its scope), oldest first.
MATCH (b:LLMBatch {scope: $scope})
RETURN b {.*} AS batch
ORDER BY b.created_at, b.token
