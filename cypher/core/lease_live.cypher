// For each run uid: is a live (unexpired) lease held on it, and by whom.
UNWIND $uids AS uid
OPTIONAL MATCH (l:Lease {run_uid: uid})
WITH uid, l ORDER BY l.expires_at DESC
WITH uid, head(collect(l)) AS l
RETURN uid, l IS NOT NULL AND l.expires_at >= timestamp() AS live, l.owner AS owner
