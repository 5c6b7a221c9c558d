"""Persistent, content-addressed cache of model replies (SQLite).

The key is a hash of everything that determines a reply (model, base URL, messages, sampling
parameters, schema), so a rerun of the same evaluation costs zero calls. Only validated replies
are stored.

The file holds every prompt and reply: it is created 0600 in a 0700 folder, and its content is
bounded (`KG_LLM_CACHE_MAX_MB`, default 2048): past the bound the oldest replies are dropped
(checked on open and every `_CHECK_EVERY` writes); `kg cache prune` does it on demand.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kg.safe_paths import private_dir, private_file

_CHECK_EVERY = 500  # writes between two checks of the size bound


def cache_key(
    model: str,
    base_url: str,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    schema: dict[str, Any] | None,
    sample: int | None = None,
) -> str:
    """`sample`: the index of one of N samples of the same request (N samples = N calls);
    None leaves the key of an unsampled request as it always was."""
    fields: dict[str, Any] = {
        "model": model,
        "base_url": base_url,
        "messages": messages,
        "params": params,
        "schema": schema,
    }
    if sample is not None:
        fields["sample"] = sample
    canonical = json.dumps(
        fields,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CachedReply(BaseModel):
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_reported: bool = True
    finish_reason: str | None = None
    logprobs: list[float] | None = None  # per generated token, when they were asked for


class ResponseCache:
    """One SQLite file; safe to share between clients in one process (a lock guards writes)."""

    def __init__(self, path: Path, max_bytes: int | None = None) -> None:
        self.path = Path(path)
        private_dir(self.path.parent)
        private_file(self.path)  # SQLite's -wal/-shm files take the database file's mode
        if max_bytes is None:
            from kg.settings import get_settings

            max_bytes = int(get_settings().llm_cache_max_mb * 1024 * 1024)
        self.max_bytes = max_bytes
        self._writes = 0
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
            "created REAL DEFAULT (unixepoch('subsec')))"
        )
        self.prune(self.max_bytes)

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM replies WHERE key = ?", (key,)).fetchone()
        return CachedReply.model_validate_json(row[0]) if row else None

    def put(self, key: str, reply: CachedReply) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies (key, value) VALUES (?, ?)",
                (key, reply.model_dump_json()),
            )
            self._writes += 1
            check = self._writes % _CHECK_EVERY == 0
        if check:
            self.prune(self.max_bytes)

    def size_bytes(self) -> int:
        """Bytes of cached content (keys and replies; the file may be larger until VACUUM)."""
        with self._lock:
            row = self._db.execute(
                "SELECT coalesce(sum(length(key) + length(value)), 0) FROM replies"
            ).fetchone()
        return int(row[0])

    def prune(
        self, max_bytes: int | None = None, older_than_s: float | None = None, vacuum: bool = False
    ) -> int:
        """Drop replies older than `older_than_s`, then the oldest ones until the content is
        at most 90% of `max_bytes` (room for the next writes before the next check).
        Returns how many were dropped."""
        removed = 0
        with self._lock:
            if older_than_s is not None:
                removed += self._db.execute(
                    "DELETE FROM replies WHERE created < unixepoch('subsec') - ?", (older_than_s,)
                ).rowcount
        if (
            max_bytes is not None
            and self._file_bytes() > max_bytes  # cheap: the content is never larger
            and (size := self.size_bytes()) > max_bytes
        ):
            excess = size - int(max_bytes * 0.9)
            with self._lock:  # oldest first, up to and including the row that crosses it
                removed += self._db.execute(
                    "DELETE FROM replies WHERE key IN (SELECT key FROM (SELECT key, "
                    "sum(length(key) + length(value)) OVER (ORDER BY created, key) "
                    "- (length(key) + length(value)) AS before FROM replies) WHERE before < ?)",
                    (excess,),
                ).rowcount
        if vacuum:
            with self._lock:
                self._db.execute("VACUUM")
        return removed

    def _file_bytes(self) -> int:
        return sum(
            p.stat().st_size
            for p in (self.path, self.path.with_name(self.path.name + "-wal"))
            if p.exists()
        )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
