"""Content-hash uids (docs/graph-model.md): sha256 of canonical JSON, first 24 hex chars."""

from __future__ import annotations

import hashlib
import json


def content_uid(*fields: object) -> str:
    """Same identifying fields, same uid: re-imports and re-builds MERGE onto the same nodes."""
    canonical = json.dumps(list(fields), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


def topic_uid(text: str) -> str:
    return content_uid("DebateTopic", text)


def opinion_uid(topic_text: str, stance: str, text: str) -> str:
    return content_uid("Opinion", topic_text, stance, text)


def comment_uid(text: str) -> str:
    # The contract says Comment uid = hash(text): one node per distinct comment text.
    return content_uid(text)


def expansion_uid(opinion: str, text: str) -> str:
    return content_uid("Expansion", opinion, text)
