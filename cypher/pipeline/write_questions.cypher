// Stage 8: a question per perspective; its valid paths as TARGET/DISTRACTOR {name, pos}, its
// concepts as POOL {key, pos}.
UNWIND $rows AS row
MATCH (v:Perspective {uid: row.perspective})
MERGE (d:Domain {name: row.domain})
MERGE (q:Question {uid: row.uid})
SET q.id = row.id, q.domain = row.domain, q.theme = row.theme, q.text = row.text,
    q.hop = row.hop, q.provenance = row.provenance, q.generation = row.generation
MERGE (q)-[:IN_DOMAIN]->(d)
MERGE (q)-[a:ASKS]->(v)
SET a.provenance = row.provenance
WITH q, row
CALL (q, row) {
  UNWIND row.valid AS vp
  MATCH (p:Path {uid: vp.uid})
  FOREACH (_ IN CASE WHEN vp.target THEN [1] ELSE [] END |
    MERGE (q)-[t:TARGET]->(p)
    SET t.name = vp.name, t.pos = vp.pos, t.provenance = row.provenance)
  FOREACH (_ IN CASE WHEN vp.target THEN [] ELSE [1] END |
    MERGE (q)-[x:DISTRACTOR]->(p)
    SET x.name = vp.name, x.pos = vp.pos, x.provenance = row.provenance)
}
CALL (q, row) {
  UNWIND row.pool AS entry
  MATCH (c:Concept {uid: entry.uid})
  MERGE (q)-[r:POOL {key: entry.key}]->(c)
  SET r.pos = entry.pos, r.provenance = row.provenance
}
RETURN count(q) AS written
