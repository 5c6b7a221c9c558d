// Stage 2: facts of chunks with their key entities (one row per fact).
UNWIND $rows AS row
MATCH (c:Chunk {uid: row.chunk})
MERGE (f:Fact {uid: row.uid})
ON CREATE SET f.domain = row.domain, f.text = row.text, f.provenance = row.provenance
MERGE (f)-[fr:FROM]->(c)
ON CREATE SET fr.provenance = row.provenance
WITH f, row
UNWIND row.entities AS ent
MERGE (e:Entity {uid: ent.uid})
ON CREATE SET e.domain = row.domain, e.name = ent.name, e.provenance = row.provenance
MERGE (f)-[m:MENTIONS]->(e)
ON CREATE SET m.provenance = row.provenance
