// Highest question id of a domain (new questions continue after it).
MATCH (q:Question {domain: $domain})
RETURN max(q.id) AS max_id
