// Path verdicts of one batch (uid = hash(judging run, answer, path)).
UNWIND $rows AS row
MATCH (a:Answer {uid: row.answer})
MATCH (p:Path {uid: row.path})
MERGE (v:Verdict {uid: row.uid})
SET v.judge = row.judge, v.present = row.present, v.partial = row.partial,
    v.edges_present = row.edges_present, v.edge_sentences = row.edge_sentences,
    v.reason = row.reason, v.votes = row.votes, v.run = $run
MERGE (v)-[:ON]->(p)
MERGE (v)-[:OF]->(a)
