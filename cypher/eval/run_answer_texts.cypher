// The text of every answer one run judged (reports compare their length with the gold's).
MATCH (a:Answer)-[:JUDGED_IN]->(:Run {uid: $uid})
RETURN a.uid AS answer, a.text AS text
