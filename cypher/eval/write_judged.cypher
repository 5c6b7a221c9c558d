// Marks an answer as judged in a run, with the per-answer judge figures; written last in the
// same transaction as its verdicts and claims, so its presence means "this question is done".
UNWIND $rows AS row
MATCH (a:Answer {uid: row.answer})
MATCH (r:Run {uid: $run})
MERGE (a)-[j:JUDGED_IN]->(r)
SET j += row.props
