// The palette stored on the domain, if any.
MATCH (d:Domain {name: $domain})
RETURN d.palette AS palette
