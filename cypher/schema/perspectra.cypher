// PERSPECTRA lookups: task items by build, runs by kind. Idempotent.
CREATE INDEX task_item_build IF NOT EXISTS FOR (n:TaskItem) ON (n.build);
CREATE INDEX run_kind IF NOT EXISTS FOR (n:Run) ON (n.kind);
