// In-memory GDS graph of candidate perspectives (ids 0..n-1) and the features they use (relation
// labels and categories, ids from $offset), built on the fly with the Cypher aggregation projection.
UNWIND $pairs AS pair
WITH gds.graph.project($graph, pair[0], pair[1], {
  sourceNodeLabels: CASE WHEN pair[0] < $offset THEN ['Perspective'] ELSE ['Feature'] END,
  targetNodeLabels: CASE WHEN pair[1] < $offset THEN ['Perspective'] ELSE ['Feature'] END,
  relationshipType: 'USES'
}) AS g
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships
