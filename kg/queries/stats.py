"""Benchmark statistics per domain and hop, with totals and the cover-all baseline.

Cover-all baseline (PerspectiveBench paper, table 15): an answer that states every valid path, so
A = V: precision |T|/|V|, recall 1, PAS their harmonic mean; per question, then averaged.
Totals are question-weighted means over the per-hop rows (the same as a mean over questions).
"""

from __future__ import annotations

from pydantic import BaseModel

from kg.store import Store

ALL = "ALL"


class StatsRow(BaseModel):
    domain: str
    hop: int | str  # an int, or "ALL" in a total row
    questions: int
    mean_valid: float
    mean_targets: float
    mean_distractors: float
    cover_all_precision: float
    cover_all_recall: float
    cover_all_pas: float


_MEANS = [
    "mean_valid",
    "mean_targets",
    "mean_distractors",
    "cover_all_precision",
    "cover_all_recall",
    "cover_all_pas",
]


def _total(domain: str, rows: list[StatsRow]) -> StatsRow:
    n = sum(r.questions for r in rows)
    means = {m: sum(getattr(r, m) * r.questions for r in rows) / n for m in _MEANS}
    return StatsRow(domain=domain, hop=ALL, questions=n, **means)


def benchmark_stats(store: Store, domain: str | None = None) -> list[StatsRow]:
    """Rows per (domain, hop), then a total per domain, then the grand total (domain "ALL")."""
    rows = [StatsRow(**r) for r in store.read("bench/stats_by_hop", domain=domain)]
    if not rows:
        return []
    out: list[StatsRow] = []
    for dom in sorted({r.domain for r in rows}):
        mine = [r for r in rows if r.domain == dom]
        out.extend(mine)
        out.append(_total(dom, mine))
    out.append(_total(ALL, rows))
    return out
