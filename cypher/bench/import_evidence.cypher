// Focused evidence, in order.
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
MATCH (f:Fact {uid: row.fact})
CREATE (q)-[:EVIDENCE {rank: row.rank}]->(f)
