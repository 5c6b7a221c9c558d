// Drop the MATCHED edges of the given opinions before they are matched again.
MATCH (o:Opinion)-[m:MATCHED]->()
WHERE o.uid IN $uids
DELETE m
RETURN count(*) AS n
