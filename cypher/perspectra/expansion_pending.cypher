// (topic, opinion, matched comment) slots with no expansion from this generator yet (resume).
MATCH (t:DebateTopic)-[:HAS_OPINION]->(o:Opinion)-[m:MATCHED]->(c:Comment)
WHERE ($topic IS NULL OR t.text = $topic)
  AND NOT EXISTS {
    MATCH (e:Expansion {generator: $generator})-[:EXPANDS]->(o)
    MATCH (e)-[s:STYLED_ON]->(c)
    WHERE s.rank = m.rank
  }
RETURN t.text AS topic, o.uid AS opinion_uid, o.text AS opinion, o.stance AS stance,
       c.uid AS comment_uid, c.text AS comment, m.rank AS rank
ORDER BY t.uid, o.uid, m.rank
LIMIT $limit
