// Give the lease back (only when it is still ours).
MATCH (l:Lease {key: $key, owner: $owner})
DELETE l
