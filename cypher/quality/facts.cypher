// kg validate: the texts of a domain's fact pool.
MATCH (f:Fact {domain: $domain})
RETURN f.text AS text
