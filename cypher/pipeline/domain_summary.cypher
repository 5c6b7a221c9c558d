// Totals of a built domain for the summary table.
CALL () { MATCH (c:Chunk {domain: $domain}) RETURN count(c) AS chunks }
CALL () { MATCH (f:Fact {domain: $domain}) RETURN count(f) AS facts,
       sum(size(coalesce(f.merged_uids, []))) AS merged_duplicates }
CALL () { MATCH (f:Fact {domain: $domain}) WHERE NOT (f)-[:IN_CONCEPT]->() RETURN count(f) AS outliers }
CALL () { MATCH (c:Concept {domain: $domain}) RETURN count(c) AS concepts }
CALL () { MATCH (:Concept {domain: $domain})-[p:CANDIDATE]->() RETURN count(p) AS candidate_pairs }
CALL () { MATCH (:Concept {domain: $domain})-[r:RELATES]->() RETURN count(r) AS edges }
CALL () {
  MATCH (a:Concept {domain: $domain})-[r:RELATES]->(b:Concept)
  WITH a, b, count(r) AS n WHERE n > 1
  RETURN count(*) AS multi_relation_pairs
}
CALL () { MATCH (p:Path {domain: $domain}) RETURN count(p) AS paths }
CALL () { MATCH (v:Perspective {domain: $domain}) RETURN count(v) AS perspectives }
CALL () { MATCH (q:Question {domain: $domain}) RETURN count(q) AS questions }
CALL () { MATCH (q:Question {domain: $domain})-[e:EVIDENCE]->() RETURN count(e) AS evidence }
RETURN chunks, facts, merged_duplicates, concepts, outliers, candidate_pairs, edges,
       multi_relation_pairs, paths, perspectives, questions, evidence
