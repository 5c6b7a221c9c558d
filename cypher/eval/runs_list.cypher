// Every evaluation run (answer-and-judge or re-judge; build and PERSPECTRA runs share the Run
// label but are listed by their own commands) with how many answers it judged, newest first.
MATCH (r:Run)
WHERE r.kind IN $kinds
RETURN r {.*} AS run, COUNT { (:Answer)-[:JUDGED_IN]->(r) } AS judged
ORDER BY r.started_at DESC
