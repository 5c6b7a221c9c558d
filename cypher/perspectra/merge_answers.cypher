// Replies of a run to task items; n = answers linked to both their item and the run.
UNWIND $rows AS r
MATCH (i:TaskItem {uid: r.item_uid})
MATCH (run:Run {uid: $run_uid})
MERGE (a:Answer {uid: r.uid})
SET a += r.props
MERGE (a)-[:FOR]->(i)
MERGE (a)-[:IN_RUN]->(run)
RETURN count(*) AS n
