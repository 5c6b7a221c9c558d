// Give the leases back (only those still ours).
UNWIND $keys AS key
MATCH (l:Lease {key: key, owner: $owner})
DELETE l
