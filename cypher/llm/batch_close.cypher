// A session of a run or build ended with every batch of its scope read: they stay as its
// record, and a later session does not take them up again.
MATCH (b:LLMBatch {scope: $scope})
WHERE b.state IN ['completed', 'failed', 'expired', 'cancelled', 'unsubmitted']
SET b.closed = true
