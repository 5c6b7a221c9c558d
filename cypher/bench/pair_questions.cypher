// Questions whose target paths run from one concept to another, with those target signatures.
MATCH (q:Question)-[t:TARGET]->(p:Path)-[:STARTS]->(:Concept {uid: $start})
MATCH (p)-[:ENDS]->(:Concept {uid: $end})
WITH q, t, p ORDER BY coalesce(t.tpos, t.pos)
RETURN q.id AS id, q.domain AS domain, q.theme AS theme, q.text AS text,
  collect(p.signature) AS targets
ORDER BY q.id
