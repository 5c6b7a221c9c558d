"""Benchmark statistics per domain and hop, with totals and the cover-all baseline.

Cover-all baseline (PerspectiveBench paper, table 15): an answer that states every valid path, so
A = V: precision |T|/|V|, recall 1, PAS their harmonic mean; per question, then averaged.
Totals are question-weighted means over the per-hop rows (the same as a mean over questions).
The grand total is one per origin ("ALL imported", "ALL built"): published data and drafts built
beside it are never averaged together.
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


def benchmark_stats(
    store: Store,
    domains: str | list[str] | None = None,
    origins: dict[str, str] | None = None,
) -> list[StatsRow]:
    """Rows per (domain, hop), then a total per domain, then a grand total per origin
    (domain "ALL imported", "ALL built", ... from `origins`: domain -> origin), or one
    "ALL" when `origins` is not given or every domain shares one origin."""
    if isinstance(domains, str):
        domains = [domains]
    rows = [StatsRow(**r) for r in store.read("bench/stats_by_hop", domains=domains)]
    if not rows:
        return []
    out: list[StatsRow] = []
    for dom in sorted({r.domain for r in rows}):
        mine = [r for r in rows if r.domain == dom]
        out.extend(mine)
        out.append(_total(dom, mine))
    origin_of = origins or {}
    groups = sorted({origin_of.get(r.domain, "") for r in rows})
    if len(groups) <= 1:
        out.append(_total(ALL, rows))
    else:
        for g in groups:
            out.append(
                _total(
                    f"{ALL} {g or 'other'}", [r for r in rows if origin_of.get(r.domain, "") == g]
                )
            )
    return out
