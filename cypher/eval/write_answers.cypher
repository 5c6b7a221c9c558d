// Answers of one batch (MERGE on the uid = hash(run, question): a resumed run never duplicates).
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
MATCH (r:Run {uid: $run})
MERGE (a:Answer {uid: row.uid})
ON CREATE SET a.text = row.text, a.tokens = row.tokens, a.tokens_source = row.tokens_source,
              a.prompt_tokens = row.prompt_tokens, a.context = row.context, a.model = row.model,
              a.run = $run, a.created_at = $now
MERGE (a)-[:FOR]->(q)
MERGE (a)-[:IN_RUN]->(r)
