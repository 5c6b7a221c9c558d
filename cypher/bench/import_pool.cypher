// The question's concept pool: key as written (e.g. topic_3_source), position, and the line's own
// entry as JSON only where it differs from the concept's canonical rendering.
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
MATCH (c:Concept {uid: row.concept})
CREATE (q)-[r:POOL {key: row.key, pos: row.pos}]->(c)
SET r.override = row.override
