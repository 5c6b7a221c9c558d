// Stage 9: a question's focused evidence, existing facts in rank order (replaces earlier ones).
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
CALL (q) {
  MATCH (q)-[old:EVIDENCE]->(:Fact)
  DELETE old
}
WITH q, row
UNWIND row.facts AS ev
MATCH (f:Fact {uid: ev.uid})
MERGE (q)-[e:EVIDENCE]->(f)
SET e.rank = ev.rank, e.provenance = row.provenance
