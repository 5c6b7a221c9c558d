// Drop an in-memory graph of this area (no error when it is already gone).
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName
