// Number of nodes per label (a node with several labels counts under each).
CALL db.labels() YIELD label
CALL (label) {
  MATCH (n) WHERE label IN labels(n)
  RETURN count(n) AS count
}
RETURN label, count
ORDER BY label
