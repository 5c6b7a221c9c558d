// Opinions (stance 'pro' | 'con') under their topic.
UNWIND $rows AS r
MATCH (t:DebateTopic {uid: r.topic_uid})
MERGE (o:Opinion {uid: r.uid})
SET o.text = r.text, o.stance = r.stance, o.provenance = coalesce(o.provenance, r.source)
MERGE (t)-[:HAS_OPINION]->(o)
RETURN count(*) AS n
