// Stage 3: merge near-duplicate facts into the kept one, keeping all provenance
// (chunks, entities, the merged texts and uids), then remove the duplicate.
UNWIND $rows AS row
MATCH (keep:Fact {uid: row.keep}), (dup:Fact {uid: row.dup})
CALL (keep, dup) {
  MATCH (dup)-[:FROM]->(c:Chunk)
  MERGE (keep)-[:FROM]->(c)
}
CALL (keep, dup) {
  MATCH (dup)-[:MENTIONS]->(e:Entity)
  MERGE (keep)-[:MENTIONS]->(e)
}
SET keep.merged_uids = coalesce(keep.merged_uids, []) + dup.uid,
    keep.merged_texts = coalesce(keep.merged_texts, []) + dup.text,
    keep.merged_provenance = coalesce(keep.merged_provenance, []) + coalesce(dup.provenance, ''),
    keep.merged_cosines = coalesce(keep.merged_cosines, []) + row.cosine
DETACH DELETE dup
