// Stored validations of the given judges, newest first.
MATCH (v:JudgeValidation)
WHERE v.judge IN $judges
RETURN v {.*} AS v
ORDER BY v.at DESC, v.uid
