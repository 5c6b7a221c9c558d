// The build generation later stages write into (`kg build --extend` starts a new one).
MERGE (d:Domain {name: $domain})
SET d.generation = $generation
