// Debate topics by content-hash uid; provenance of the first import is kept.
UNWIND $rows AS r
MERGE (t:DebateTopic {uid: r.uid})
SET t.text = r.text, t.provenance = coalesce(t.provenance, r.source)
RETURN count(*) AS n
