// Remove what the evaluation benchmark created: its runs (with answers, verdicts, claims) and
// its synthetic domain. Only ever called by benchmarks/eval_perf.py and
// benchmarks/html_report.py, with their own names.
CALL (){
  MATCH (r:Run) WHERE r.uid IN $runs
  OPTIONAL MATCH (a:Answer)-[:IN_RUN]->(r)
  OPTIONAL MATCH (x)-[:OF]->(a) WHERE x:Verdict OR x:Claim
  DETACH DELETE x, a, r
}
CALL (){
  MATCH (n) WHERE n.domain = $domain OR (n:Domain AND n.name = $domain)
  DETACH DELETE n
}
