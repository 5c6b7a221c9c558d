"""PerspectiveBench JSONL: models, strict parsing, validation, import into and export from the graph."""
