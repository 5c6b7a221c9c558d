"""Persistent, content-addressed cache of model replies (SQLite).

The key is a hash of everything that determines a reply (model, base URL, messages, sampling
parameters, schema), so a rerun of the same evaluation costs zero calls. Only validated replies
are stored.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel


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

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
            "created REAL DEFAULT (unixepoch('subsec')))"
        )

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

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
