// What a domain holds and where it came from. Domains written before origins were recorded
// are recognized by their contents: imported questions carry import provenance, built ones
// have chunks.
UNWIND $names AS name
OPTIONAL MATCH (d:Domain {name: name})
CALL (name) {
  OPTIONAL MATCH (q:Question {domain: name})
  RETURN count(q) AS questions,
         count(CASE WHEN q.provenance CONTAINS '"stage": "import"' THEN 1 END) AS imported_q
}
CALL (name) {
  OPTIONAL MATCH (c:Chunk {domain: name})
  RETURN collect(c.uid) AS chunk_uids
}
CALL (name) {
  OPTIONAL MATCH (c:Concept {domain: name})
  RETURN count(c) AS concepts
}
CALL (name) {
  OPTIONAL MATCH (r:Run)<-[:IN_RUN]-(:Answer)-[:FOR]->(:Question {domain: name})
  RETURN collect(DISTINCT r.uid) AS runs
}
CALL (name) {
  OPTIONAL MATCH (b:Run {kind: 'build', domain: name})
  WITH b ORDER BY b.started_at DESC
  RETURN head(collect(b {.uid, .status, .version, .generation})) AS last_build
}
RETURN name, d IS NOT NULL OR questions > 0 OR size(chunk_uids) > 0 AS exists,
       coalesce(d.imported, false) OR imported_q > 0 AS imported,
       coalesce(d.built, false) OR size(chunk_uids) > 0 AS built,
       questions, imported_q AS imported_questions, chunk_uids, concepts, runs, last_build,
       coalesce(d.generation, 0) AS generation, coalesce(d.import_sources, []) AS import_sources
