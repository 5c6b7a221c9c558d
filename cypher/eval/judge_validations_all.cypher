// Every stored judge validation, newest first.
MATCH (v:JudgeValidation)
RETURN v {.*} AS v
ORDER BY v.at DESC, v.uid
