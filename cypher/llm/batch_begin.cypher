// A batch about to be submitted, written before the provider sees it: a process killed after
// the provider accepted it finds it again by its token (the batch's metadata) instead of
// submitting its lines twice.
CREATE (b:LLMBatch {token: $token})
SET b.scope = $scope,
    b.role = $role,
    b.model = $model,
    b.base_url = $base_url,
    b.state = 'submitting',
    b.custom_ids = $custom_ids,
    b.lines = size($custom_ids),
    b.bytes = $bytes,
    b.created_at = datetime()
