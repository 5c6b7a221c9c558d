// Expansions of an opinion, STYLED_ON the comment of the same rank (the pairing as given).
UNWIND $rows AS r
MATCH (o:Opinion {uid: r.opinion_uid})
MATCH (c:Comment {uid: r.comment_uid})
MERGE (e:Expansion {uid: r.uid})
SET e.text = r.text, e.generator = r.generator, e.prompt_hash = r.prompt_hash,
    e.rank = r.rank, e.provenance = coalesce(e.provenance, r.source)
MERGE (e)-[:EXPANDS]->(o)
MERGE (e)-[s:STYLED_ON]->(c)
SET s.rank = r.rank
RETURN count(*) AS n
