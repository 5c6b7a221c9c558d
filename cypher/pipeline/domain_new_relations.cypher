// New relations recorded for a domain (JSON), if any.
MATCH (d:Domain {name: $domain})
RETURN d.new_relations AS new_relations
