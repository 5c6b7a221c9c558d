// What maps a question's theme to a category: its theme, its target paths' labels, and the
// categories (with their labels) the relations of its domain carry. The categories are read
// once per domain, not once per question (`a.key IS NOT NULL`, true of every concept, lets the
// planner seek the (domain, key) index instead of scanning every concept).
MATCH (q:Question) WHERE q.uid IN $uids
WITH q.domain AS domain, collect(q) AS questions
CALL (domain) {
  OPTIONAL MATCH (a:Concept {domain: domain})-[r:RELATES]->(:Concept)
  WHERE a.key IS NOT NULL AND r.category IS NOT NULL
  WITH r.category AS category, collect(DISTINCT r.label) AS labels
  RETURN collect({category: category, labels: labels}) AS categories
}
UNWIND questions AS q
RETURN q.uid AS uid, q.domain AS domain, q.theme AS theme,
       [(q)-[:TARGET]->(p:Path) | p.labels] AS target_labels, categories
