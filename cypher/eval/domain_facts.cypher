// Every fact of a domain (the corpus of the RAG settings), in a stable order.
MATCH (f:Fact {domain: $domain})
RETURN f.uid AS uid, f.text AS text
ORDER BY f.uid
