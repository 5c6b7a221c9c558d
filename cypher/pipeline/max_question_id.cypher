// Highest question id of the domain's earlier build generations (this generation's questions
// are numbered after it, in a stable order).
MATCH (q:Question {domain: $domain})
WHERE coalesce(q.generation, 0) < $generation
RETURN max(q.id) AS max_id
