// Keep the domain's relation palette (JSON) so later stages run without the file.
MERGE (d:Domain {name: $domain})
SET d.palette = $palette, d.palette_source = $source
