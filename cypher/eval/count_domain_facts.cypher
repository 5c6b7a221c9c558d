// How many facts a domain holds (bounds the dense search's candidate list).
MATCH (f:Fact {domain: $domain})
RETURN count(f) AS n
