"""Read-side graph queries: concepts, reasoning paths between concepts, perspectives, statistics."""
