// Stage 4: one Concept per cluster with its topic words (summary filled by stage `concepts`).
UNWIND $rows AS row
MERGE (d:Domain {name: $domain})
MERGE (c:Concept {uid: row.uid})
SET c.domain = $domain, c.key = row.key, c.topic_words = row.topic_words,
    c.terms = row.terms,
    c.central_fact = row.central_fact, c.size = row.size, c.provenance = $provenance,
    c.summary = null, c.name = null, c.text = null, c.generation = $generation
MERGE (c)-[:IN_DOMAIN]->(d)
