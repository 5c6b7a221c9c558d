"""PERSPECTRA in the graph: debate topics, opinions, matched comments and expansions."""
