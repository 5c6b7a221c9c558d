// MATCHED {rank (1 = best), cosine, model}; one edge per rank (a comment may fill two ranks).
UNWIND $rows AS r
MATCH (o:Opinion {uid: r.opinion_uid})
MATCH (c:Comment {uid: r.comment_uid})
MERGE (o)-[m:MATCHED {rank: r.rank}]->(c)
SET m.cosine = r.cosine, m.model = r.model
RETURN count(*) AS n
