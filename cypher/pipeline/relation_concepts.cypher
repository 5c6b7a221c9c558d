// Offline relations: every concept of a domain with the phrases that recognize it in a sentence.
MATCH (c:Concept {domain: $domain})
WHERE $generation IN coalesce(c.generations, [coalesce(c.generation, 0)])  // its own and reused concepts
RETURN c.uid AS uid, c.key AS key, c.name AS name, coalesce(c.terms, []) AS terms,
       coalesce(c.topic_words, []) AS topic_words,
       coalesce(c.generation, 0) <> $generation AS reused
ORDER BY toInteger(split(c.key, '_')[-1]), c.key
