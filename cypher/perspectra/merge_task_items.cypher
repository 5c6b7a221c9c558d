// Task items with their expansions in order (INCLUDES {pos}); n = expansions linked.
UNWIND $rows AS r
MERGE (i:TaskItem {uid: r.uid})
SET i += r.props
WITH i, r
CALL (i, r) {
  UNWIND range(0, size(r.expansion_uids) - 1) AS pos
  MATCH (e:Expansion {uid: r.expansion_uids[pos]})
  MERGE (i)-[:INCLUDES {pos: pos}]->(e)
  RETURN count(*) AS linked
}
RETURN sum(linked) AS n
