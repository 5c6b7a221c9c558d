// Record where a domain's content came from (imported, built, or both).
UNWIND $names AS name
MERGE (d:Domain {name: name})
SET d.imported = CASE WHEN $imported THEN true ELSE coalesce(d.imported, false) END,
    d.built = CASE WHEN $built THEN true ELSE coalesce(d.built, false) END
