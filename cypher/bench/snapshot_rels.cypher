// Every relationship with its type, properties and endpoint keys (tests compare snapshots).
MATCH (a)-[r]->(b)
RETURN type(r) AS type, properties(r) AS props, coalesce(a.uid, a.name) AS from,
  coalesce(b.uid, b.name) AS to
