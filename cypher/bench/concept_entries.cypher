// Concepts rendered as pool entries: summary, topic words and key evidence (ranked facts in order;
// a concept built without ranks lists its facts by membership probability).
UNWIND $uids AS uid
MATCH (c:Concept {uid: uid})
CALL (c) {
  OPTIONAL MATCH (f:Fact)-[r:IN_CONCEPT]->(c)
  WITH f, r ORDER BY r.rank IS NULL, r.rank, r.prob DESC, f.text
  WITH collect(CASE WHEN r.rank IS NOT NULL THEN f.text END) AS ranked, collect(f.text) AS every
  RETURN CASE WHEN size(ranked) > 0 THEN ranked ELSE every END AS key_evidence
}
RETURN c.uid AS uid, c.key AS key, c.summary AS summary, c.topic_words AS topic_words,
  key_evidence
