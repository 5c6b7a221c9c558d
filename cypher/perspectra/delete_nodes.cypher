// Benchmark/reset helper: every PERSPECTRA node (auto-commit, batched); other data untouched.
MATCH (n)
WHERE n:DebateTopic OR n:Opinion OR n:Comment OR n:Expansion OR n:TaskItem
   OR (n:Run AND n.kind = 'perspectra')
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
