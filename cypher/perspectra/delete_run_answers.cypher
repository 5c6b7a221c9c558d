// Benchmark/reset helper: the Answers of PERSPECTRA runs (auto-commit, batched).
MATCH (a:Answer)-[:IN_RUN]->(:Run {kind: 'perspectra'})
CALL (a) { DETACH DELETE a } IN TRANSACTIONS OF 5000 ROWS
