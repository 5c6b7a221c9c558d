// Domains of an import batch.
UNWIND $rows AS row
MERGE (:Domain {name: row.name})
