// Answers a run has finished (answer and judgments written together), for resuming.
MATCH (a:Answer)-[:JUDGED_IN]->(:Run {uid: $uid})
MATCH (a)-[:FOR]->(q:Question)
RETURN a.uid AS answer, q.uid AS question
