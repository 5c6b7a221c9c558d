// The relation palette stored on a domain by `kg build` (JSON), if any.
MATCH (d:Domain {name: $domain})
RETURN d.palette AS palette
