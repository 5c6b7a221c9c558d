// Record where a domain's content came from (imported, built, or both); `$sources` (the
// imported files as "NAME sha256:HEX", may be null) are added to the ones already recorded.
UNWIND $names AS name
MERGE (d:Domain {name: name})
SET d.imported = CASE WHEN $imported THEN true ELSE coalesce(d.imported, false) END,
    d.built = CASE WHEN $built THEN true ELSE coalesce(d.built, false) END,
    d.import_sources = reduce(acc = coalesce(d.import_sources, []), s IN coalesce($sources, []) |
                              CASE WHEN s IN acc THEN acc ELSE acc + s END)
