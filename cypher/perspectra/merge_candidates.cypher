// Reddit comments retrieved for a topic: the candidate pool that matching draws from.
UNWIND $rows AS r
MATCH (c:Comment {uid: r.comment_uid})
MATCH (t:DebateTopic {uid: r.topic_uid})
MERGE (c)-[:CANDIDATE_FOR]->(t)
RETURN count(*) AS n
