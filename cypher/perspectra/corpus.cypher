// Topics with their opinions and each opinion's expansions (the material of every task).
MATCH (t:DebateTopic)-[:HAS_OPINION]->(o:Opinion)<-[:EXPANDS]-(e:Expansion)
WITH t, o, collect({uid: e.uid, text: e.text}) AS expansions
WITH t, collect({uid: o.uid, text: o.text, stance: o.stance, expansions: expansions}) AS opinions
RETURN t.uid AS topic_uid, t.text AS topic, opinions
