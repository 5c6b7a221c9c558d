// Every node with its labels and properties (tests compare the graph before and after).
MATCH (n)
RETURN labels(n) AS labels, properties(n) AS props
