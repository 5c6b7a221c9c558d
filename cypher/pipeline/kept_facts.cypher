// Facts an earlier build generation (or an import) uses in a concept or as a question's
// evidence: a near-duplicate merge keeps them, so earlier questions stay as they are.
MATCH (f:Fact {domain: $domain})
WHERE EXISTS { (f)-[:IN_CONCEPT]->(c:Concept) WHERE coalesce(c.generation, 0) < $generation }
   OR EXISTS { (q:Question)-[:EVIDENCE]->(f) WHERE coalesce(q.generation, 0) < $generation }
RETURN f.uid AS uid
