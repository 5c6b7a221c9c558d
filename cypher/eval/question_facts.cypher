// Every fact of each question's own graph: the facts IN_CONCEPT of its POOL concepts
// (the `--gt full` ground truth, and the pool the Noisy setting samples from).
UNWIND $uids AS quid
MATCH (q:Question {uid: quid})
OPTIONAL MATCH (q)-[:POOL]->(:Concept)<-[ic:IN_CONCEPT]-(f:Fact)
WITH q, f ORDER BY f.uid
RETURN q.uid AS uid, [x IN collect(DISTINCT {uid: f.uid, text: f.text}) WHERE x.uid IS NOT NULL]
       AS facts
