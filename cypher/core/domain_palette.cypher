// The relation palette `kg build --palette` stored on a domain (JSON), and the labels a model
// added under --allow-new-relations (JSON), if any. The one query that reads either.
MATCH (d:Domain {name: $domain})
RETURN d.palette AS palette, d.new_relations AS new_relations
