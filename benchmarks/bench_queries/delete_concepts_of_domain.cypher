// Benchmark support: remove one domain's concepts and their edges, in batches.
MATCH (c:Concept {domain: $domain})
CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS
