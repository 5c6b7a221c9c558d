// The replies stored for one run, keyed by task item, with their token counts.
MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $run_uid})
MATCH (a)-[:FOR]->(i:TaskItem)
RETURN i.uid AS item_uid, a.text AS text,
       coalesce(a.tokens_in, 0) AS tokens_in, coalesce(a.tokens_out, 0) AS tokens_out
ORDER BY i.index
