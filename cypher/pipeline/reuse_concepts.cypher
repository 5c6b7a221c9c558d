// `kg build --extend`: earlier concepts a new generation's clusters reproduce are reused by it
// (the generation's stages then select them beside its own), never written again.
UNWIND $uids AS uid
MATCH (c:Concept {uid: uid})
SET c.generations = [g IN coalesce(c.generations, [coalesce(c.generation, 0)])
                     WHERE g <> $generation] + $generation
