// kg validate: whether a domain has anything to validate, and whether it was imported (its
// checks then follow the published conventions).
OPTIONAL MATCH (q:Question {domain: $domain})
WITH count(q) AS questions
OPTIONAL MATCH (c:Concept {domain: $domain})
WITH questions, count(c) AS concepts
OPTIONAL MATCH (d:Domain {name: $domain})
RETURN questions, concepts, coalesce(d.imported, false) AS imported
