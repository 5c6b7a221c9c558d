// Items a stage has finished for a domain (per-item resume state).
MATCH (s:BuildStep {domain: $domain, stage: $stage})
WHERE coalesce(s.generation, 0) = $generation
RETURN s.item AS item, s.input_hash AS input_hash
