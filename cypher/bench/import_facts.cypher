// Facts: one node per distinct sentence per domain.
UNWIND $rows AS row
MERGE (f:Fact {uid: row.uid})
  ON CREATE SET f.domain = row.domain, f.text = row.text, f.provenance = row.provenance
