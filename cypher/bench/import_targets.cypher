// Target paths: name and pos as in valid_paths, tpos = order in perspective_valid_paths;
// reasons only when the line's reasons differ from the shared Path's.
UNWIND $rows AS row
MATCH (q:Question {uid: row.question})
MATCH (p:Path {uid: row.path})
CREATE (q)-[r:TARGET {name: row.name, pos: row.pos, tpos: row.tpos}]->(p)
SET r.reasons = row.reasons
