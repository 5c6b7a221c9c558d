// Delete one domain and everything in it (one transaction). Runs that answered its questions
// are kept, marked with the deleted domain; their answers stay on the Run.
CALL () {
  MATCH (r:Run)<-[:IN_RUN]-(:Answer)-[:FOR]->(:Question {domain: $domain})
  WITH DISTINCT r
  SET r.deleted_domains = CASE WHEN $domain IN coalesce(r.deleted_domains, []) THEN
        r.deleted_domains ELSE coalesce(r.deleted_domains, []) + $domain END
  RETURN count(r) AS runs_marked
}
CALL () {
  MATCH (n)
  WHERE (n:Chunk OR n:Fact OR n:Entity OR n:Concept OR n:Path OR n:Perspective OR n:Question
         OR n:BuildStep) AND n.domain = $domain
  DETACH DELETE n
  RETURN count(*) AS nodes_deleted
}
CALL () {
  OPTIONAL MATCH (d:Domain {name: $domain})
  FOREACH (_ IN CASE WHEN $keep_domain OR d IS NULL THEN [] ELSE [1] END | DETACH DELETE d)
  FOREACH (_ IN CASE WHEN $keep_domain AND d IS NOT NULL THEN [1] ELSE [] END |
    SET d.imported = false, d.built = false, d.generation = 0)
  RETURN count(d) AS domains
}
RETURN runs_marked, nodes_deleted
