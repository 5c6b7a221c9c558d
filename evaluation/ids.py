"""Content-hash uids (docs/graph-model.md): sha256 of a canonical JSON array, first 24 hex."""

from __future__ import annotations

import hashlib
import json


def content_uid(*fields: object) -> str:
    canonical = json.dumps(list(fields), ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


def answer_uid(run: str, question: str) -> str:
    return content_uid("answer", run, question)


def verdict_uid(run: str, answer: str, path: str) -> str:
    return content_uid("verdict", run, answer, path)


def claim_uid(run: str, answer: str, pos: int) -> str:
    return content_uid("claim", run, answer, pos)
