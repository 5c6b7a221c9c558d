"""Read-side quality checks of a domain in the graph (`kg validate`)."""
