"""Build-stage hashing on the shared uid scheme of `kg.ids`, so a build and an import of its
export MERGE onto the same nodes."""

from __future__ import annotations

from kg.ids import content_uid

__all__ = ["content_uid", "fingerprint"]


def fingerprint(items: list[str]) -> str:
    """Order-independent hash of a set of uids: decides whether a domain-level stage is stale."""
    return content_uid(*sorted(set(items)))
