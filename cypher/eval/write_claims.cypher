// Claims of one batch (uid = hash(judging run, answer, position)), linked to the supporting fact.
UNWIND $rows AS row
MATCH (a:Answer {uid: row.answer})
MERGE (c:Claim {uid: row.uid})
SET c.text = row.text, c.supported = row.supported, c.supporting = row.supporting,
    c.supporting_fact = row.supporting_fact, c.pos = row.pos, c.judge = row.judge, c.run = $run
MERGE (c)-[:OF]->(a)
WITH c, row
WHERE row.supporting_fact IS NOT NULL
MATCH (f:Fact {uid: row.supporting_fact})
MERGE (c)-[:SUPPORTED_BY]->(f)
