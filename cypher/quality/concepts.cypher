// kg validate: every concept of a domain with its name, mention terms and facts.
MATCH (c:Concept {domain: $domain})
OPTIONAL MATCH (f:Fact)-[:IN_CONCEPT]->(c)
WITH c, collect(DISTINCT f.text) AS facts
RETURN c.key AS key, c.name AS name, coalesce(c.terms, []) AS terms,
       coalesce(c.topic_words, []) AS topic_words, facts
ORDER BY c.key
