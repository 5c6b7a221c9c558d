// Stage 7: Perspective nodes (the selected perspectives: paths sharing a relation at one hop)
// with their target and distractor paths.
UNWIND $rows AS row
MERGE (v:Perspective {uid: row.uid})
SET v.domain = row.domain, v.concept_keys = row.concept_keys, v.hops = row.hops,
    v.level = row.level, v.hop = row.hop, v.focus = row.focus, v.categories = row.categories, v.theme = row.theme,
    v.provenance = row.provenance, v.generation = row.generation
WITH v, row
CALL (v, row) {
  UNWIND row.targets AS t
  MATCH (p:Path {uid: t})
  MERGE (v)-[tl:TARGET]->(p)
  SET tl.provenance = row.provenance
}
CALL (v, row) {
  UNWIND row.distractors AS d
  MATCH (p:Path {uid: d})
  MERGE (v)-[dl:DISTRACTOR]->(p)
  SET dl.provenance = row.provenance
}
RETURN count(v) AS written
