// Remove every node and relationship, in batches of 10k per inner transaction.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
