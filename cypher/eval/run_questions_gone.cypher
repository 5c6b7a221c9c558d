// Before a run ends `done`: how many of its selected questions are gone, and how many of its
// answers hang on no question (their question was deleted or replaced under the run).
CALL () {
  UNWIND $uids AS uid
  OPTIONAL MATCH (q:Question {uid: uid})
  RETURN count(uid) - count(q) AS missing
}
CALL () {
  OPTIONAL MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $uid})
  WHERE NOT (a)-[:FOR]->(:Question)
  RETURN count(a) AS orphans
}
RETURN missing, orphans
