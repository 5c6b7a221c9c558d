// Topics that have Reddit candidates: the candidate pool and the topic's opinions.
MATCH (t:DebateTopic)<-[:CANDIDATE_FOR]-(c:Comment)
WHERE $topic IS NULL OR t.text = $topic
WITH t, collect({uid: c.uid, text: c.text}) AS comments
MATCH (t)-[:HAS_OPINION]->(o:Opinion)
WITH t, comments, o, EXISTS { (o)-[:MATCHED]->() } AS matched
RETURN t.uid AS topic_uid, t.text AS topic, comments,
       collect({uid: o.uid, text: o.text, matched: matched}) AS opinions
ORDER BY topic_uid
