"""Shared access to the embedding model from async code (one encode at a time)."""

from __future__ import annotations

import threading

import numpy as np

_LOCK = threading.Lock()


def embed(texts: list[str]) -> np.ndarray:
    """Normalized vectors (n, d) through `kg.embeddings` (disk-cached by content hash)."""
    from kg.embeddings import get_embedder

    with _LOCK:
        return get_embedder().encode(list(texts))
