// Record that a stage finished items (one row per item).
UNWIND $rows AS row
MERGE (s:BuildStep {uid: row.uid})
SET s.domain = row.domain, s.stage = row.stage, s.item = row.item,
    s.input_hash = row.input_hash, s.run = row.run, s.done_at = datetime(),
    s.generation = row.generation
