// Drop every in-memory GDS graph of this database.
CALL gds.graph.list() YIELD graphName
CALL gds.graph.drop(graphName, false) YIELD graphName AS dropped
RETURN dropped
