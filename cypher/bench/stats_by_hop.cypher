// Per domain and hop: questions, mean valid/target/distractor paths, and the cover-all baseline
// (an answer stating every valid path: precision |T|/|V|, recall 1, PAS their harmonic mean).
MATCH (q:Question)
WHERE $domains IS NULL OR q.domain IN $domains
CALL (q) {
  OPTIONAL MATCH (q)-[t:TARGET]->(:Path)
  RETURN count(t) AS targets
}
CALL (q) {
  OPTIONAL MATCH (q)-[d:DISTRACTOR]->(:Path)
  RETURN count(d) AS distractors
}
WITH q.domain AS domain, q.hop AS hop, targets, distractors, targets + distractors AS valid
WITH domain, hop, targets, distractors, valid,
  CASE WHEN valid > 0 THEN toFloat(targets) / valid ELSE 0.0 END AS precision,
  CASE WHEN targets > 0 THEN 1.0 ELSE 0.0 END AS recall
WITH domain, hop, targets, distractors, valid, precision, recall,
  CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall) ELSE 0.0 END
    AS pas
RETURN domain, hop, count(*) AS questions,
  avg(valid) AS mean_valid, avg(targets) AS mean_targets, avg(distractors) AS mean_distractors,
  avg(precision) AS cover_all_precision, avg(recall) AS cover_all_recall, avg(pas) AS cover_all_pas
ORDER BY domain, hop
