// Every run with how many answers it judged, newest first.
MATCH (r:Run)
RETURN r {.*} AS run, COUNT { (:Answer)-[:JUDGED_IN]->(r) } AS judged
ORDER BY r.started_at DESC
