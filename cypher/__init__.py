"""Every Cypher query of the product, one parameterized `.cypher` file each (data package)."""
