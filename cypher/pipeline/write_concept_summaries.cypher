// Stage 4: a concept's name and one-sentence representative summary (+ full-text `text`).
UNWIND $rows AS row
MATCH (c:Concept {uid: row.uid})
SET c.name = row.name, c.summary = row.summary, c.text = row.text,
    c.summary_provenance = row.provenance
