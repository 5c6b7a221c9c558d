// Drop the guards of a reader whose process is known to be dead (same host, pid gone): it
// reads nothing any more, and its lease would otherwise block writers until it expires.
MATCH (r:Lease {owner: $dead_owner})
REMOVE r.guards
RETURN count(r) AS cleared
