// Forget what the given stages finished for a domain (`--from-stage`, stale inputs).
MATCH (s:BuildStep {domain: $domain})
WHERE s.stage IN $stages
DETACH DELETE s
