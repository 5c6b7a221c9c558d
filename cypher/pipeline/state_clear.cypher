// Forget what the given stages finished for a domain (`--from-stage`, stale inputs).
MATCH (s:BuildStep {domain: $domain})
WHERE s.stage IN $stages AND coalesce(s.generation, 0) = $generation
DETACH DELETE s
