// A new concept's Key Evidence list, in order (rank); a sentence listed twice gets two ranks.
UNWIND $rows AS row
MATCH (c:Concept {uid: row.concept})
MATCH (f:Fact {uid: row.fact})
MERGE (f)-[:IN_CONCEPT {rank: row.rank}]->(c)
