// Every domain name the graph knows (Domain nodes and the domains of questions and chunks).
CALL () {
  MATCH (d:Domain) RETURN d.name AS name
  UNION
  MATCH (q:Question) RETURN DISTINCT q.domain AS name
  UNION
  MATCH (c:Chunk) RETURN DISTINCT c.domain AS name
}
WITH name WHERE name IS NOT NULL
RETURN DISTINCT name ORDER BY name
