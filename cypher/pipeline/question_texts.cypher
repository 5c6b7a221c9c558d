// The texts of a domain's questions (offline templates avoid repeating one).
MATCH (q:Question {domain: $domain})
RETURN q.text AS text
