// Questions a run has finished (answer and judgments written together), for resuming.
MATCH (a:Answer)-[:JUDGED_IN]->(:Run {uid: $uid})
MATCH (a)-[:FOR]->(q:Question)
RETURN q.uid AS question
