// Concepts of a domain with their facts, key evidence first (summaries, relations, names).
MATCH (c:Concept {domain: $domain})
WHERE coalesce(c.generation, 0) = $generation
OPTIONAL MATCH (f:Fact)-[r:IN_CONCEPT]->(c)
WITH c, f, r
ORDER BY c.key, coalesce(r.rank, 1000000), r.prob DESC, f.text, f.uid
WITH c, collect(f.text) AS texts, collect(f.uid) AS uids
CALL (c) {
  OPTIONAL MATCH (c)<-[:IN_CONCEPT]-(:Fact)-[:MENTIONS]->(e:Entity)
  WITH e.name AS name, count(*) AS n
  WHERE name IS NOT NULL
  ORDER BY n DESC, name
  LIMIT 15
  RETURN collect({name: name, n: n}) AS entities
}
RETURN c.uid AS uid, c.key AS key, c.name AS name, c.summary AS summary,
       c.topic_words AS topic_words, c.central_fact AS central_fact,
       texts[..$limit] AS facts, uids[..$limit] AS fact_uids, size(uids) AS size,
       entities
ORDER BY toInteger(split(c.key, '_')[-1]), c.key
