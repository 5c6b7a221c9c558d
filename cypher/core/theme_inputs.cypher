// What maps a question's theme to a category: its theme, its target paths' labels, and the
// categories (with their labels) the relations of its domain carry.
MATCH (q:Question) WHERE q.uid IN $uids
CALL (q) {
  OPTIONAL MATCH (a:Concept {domain: q.domain})-[r:RELATES]->(:Concept)
  WHERE r.category IS NOT NULL
  WITH r.category AS category, collect(DISTINCT r.label) AS labels
  RETURN collect({category: category, labels: labels}) AS categories
}
RETURN q.uid AS uid, q.domain AS domain, q.theme AS theme,
       [(q)-[:TARGET]->(p:Path) | p.labels] AS target_labels, categories
