// Distractor paths: the valid paths that are not targets.
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
MATCH (p:Path {uid: row.path})
CREATE (q)-[r:DISTRACTOR {name: row.name, pos: row.pos}]->(p)
SET r.reasons = row.reasons
