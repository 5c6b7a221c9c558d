// One run by uid (null when there is none).
OPTIONAL MATCH (r:Run {uid: $uid})
RETURN r {.*} AS run
