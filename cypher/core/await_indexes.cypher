// Wait until every index is online (after schema changes or bulk writes).
CALL db.awaitIndexes(300)
