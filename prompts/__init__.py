"""Prompt templates, one file each, identified by name and content hash (data package)."""
