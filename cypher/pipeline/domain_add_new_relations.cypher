// Record relations a model proposed outside the palette (--allow-new-relations), with their
// descriptions, as a JSON map on the domain.
MATCH (d:Domain {name: $domain})
SET d.new_relations = $new_relations
