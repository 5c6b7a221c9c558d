// Every fact of a domain (the corpus of the RAG settings), in a stable order, as two columns in
// one record: tens of thousands of one-row records cost the driver far more than two lists.
MATCH (f:Fact {domain: $domain})
WITH f
ORDER BY f.uid
RETURN collect(f.uid) AS uids, collect(f.text) AS texts
