// Stage 8/9 input: perspectives with their concepts (in order), target and distractor paths
// and the question already asked for each (if any).
MATCH (v:Perspective {domain: $domain})
WHERE coalesce(v.generation, 0) = $generation
CALL (v) {
  UNWIND range(0, size(v.concept_keys) - 1) AS i
  MATCH (c:Concept {domain: $domain, key: v.concept_keys[i]})
  WITH i, c ORDER BY i
  // coalesce: collect() drops nulls, and a concept whose summary call failed has none (the
  // lists must stay aligned with concept_keys)
  RETURN collect(coalesce(c.name, c.key)) AS names, collect(coalesce(c.summary, '')) AS summaries
}
CALL (v) {
  MATCH (v)-[:TARGET]->(t:Path)
  WITH t ORDER BY t.signature
  RETURN collect({uid: t.uid, signature: t.signature, labels: t.labels, hops: t.hops,
                  reasons: t.reasons}) AS targets
}
CALL (v) {
  MATCH (v)-[:DISTRACTOR]->(d:Path)
  WITH d ORDER BY d.signature
  RETURN collect({uid: d.uid, signature: d.signature, labels: d.labels, hops: d.hops})
         AS distractors
}
// fresh: a concept of the perspective holds a fact of this generation's new chunks (an extended
// domain's new generation asks only about them; the earlier chunks' questions exist)
WITH v, names, summaries, targets, distractors, EXISTS {
  MATCH (c:Concept {domain: $domain})<-[:IN_CONCEPT]-(:Fact)-[:FROM]->(ch:Chunk)
  WHERE c.key IN v.concept_keys AND coalesce(ch.generation, 0) = $generation
} AS fresh
OPTIONAL MATCH (q:Question)-[:ASKS]->(v)
RETURN v.uid AS uid, v.theme AS theme, v.level AS level, v.focus AS focus, v.categories AS categories, v.hops AS hops,
       v.concept_keys AS concept_keys, names, summaries, targets, distractors,
       q.uid AS question_uid, q.id AS question_id, q.text AS question_text, fresh
ORDER BY v.hops, v.concept_keys, v.hop, v.focus
