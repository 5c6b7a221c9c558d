// A batch's provider id, state and files as last seen.
MATCH (b:LLMBatch {token: $token})
SET b += $props, b.updated_at = datetime()
