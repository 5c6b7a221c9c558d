// kg validate: whether a domain has anything to validate.
OPTIONAL MATCH (q:Question {domain: $domain})
WITH count(q) AS questions
OPTIONAL MATCH (c:Concept {domain: $domain})
RETURN questions, count(c) AS concepts
