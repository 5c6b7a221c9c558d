"""PerspectiveBench JSONL: models, strict parsing, validation, graph import and export."""
