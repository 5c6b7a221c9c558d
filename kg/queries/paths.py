"""Every simple directed path of 1..max_hops RELATES edges between two concepts (in Cypher)."""

from __future__ import annotations

from kg.errors import InputError
from kg.queries.models import GraphPath, PathGroup
from kg.store import Store

MAX_HOPS = 3


def check_hops(max_hops: int) -> int:
    if not 1 <= max_hops <= MAX_HOPS:
        raise InputError(f"max hops must be between 1 and {MAX_HOPS}, got {max_hops}")
    return max_hops


def paths_between(
    store: Store,
    start_uid: str,
    end_uid: str,
    *,
    max_hops: int = MAX_HOPS,
    palette: dict[str, str] | None = None,
) -> list[PathGroup]:
    """Paths from one concept to another, grouped by relation-label signature (short first)."""
    rows = store.read(
        "bench/paths_between",
        start=start_uid,
        end=end_uid,
        max_hops=check_hops(max_hops),
        palette=palette or {},
    )
    return [PathGroup(labels=r["labels"], paths=[GraphPath(**p) for p in r["paths"]]) for r in rows]
