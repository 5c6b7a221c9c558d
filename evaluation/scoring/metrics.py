"""The metrics, exactly as the issue defines them (pure functions, hand-checkable).

A = paths judged present, T = target paths:
PPrec = |A∩T|/|A| (|A| = 0 -> 0, and the item is flagged), PRec = |A∩T|/|T|,
PAS = harmonic mean (0 when both are 0); per question, then averaged; overall = weighted by
questions per hop. Partial variant: a path contributes the share of its edges the answer
reproduces instead of 0/1 (soft set sizes). Faithfulness = supported claims / claims (None when
the answer makes no claim: excluded from means, counted).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel


class PathScore(BaseModel):
    precision: float
    recall: float
    pas: float
    empty_a: bool  # |A| = 0: precision set to 0 and the item flagged


def harmonic(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def path_scores(targets: Iterable[str], present: Iterable[str]) -> PathScore:
    t, a = set(targets), set(present)
    if not t:
        raise ValueError("a question without target paths cannot be scored")
    hit = len(a & t)
    precision = hit / len(a) if a else 0.0
    recall = hit / len(t)
    return PathScore(
        precision=precision, recall=recall, pas=harmonic(precision, recall), empty_a=not a
    )


def partial_scores(targets: Iterable[str], credit: Mapping[str, float]) -> PathScore:
    """`credit[path]` in [0, 1] for every judged path (missing = 0)."""
    t = set(targets)
    if not t:
        raise ValueError("a question without target paths cannot be scored")
    total = sum(max(0.0, min(1.0, c)) for c in credit.values())
    on_target = sum(max(0.0, min(1.0, credit.get(p, 0.0))) for p in t)
    precision = on_target / total if total > 0 else 0.0
    recall = on_target / len(t)
    return PathScore(
        precision=precision, recall=recall, pas=harmonic(precision, recall), empty_a=total == 0
    )


def faithfulness(supported: Iterable[bool]) -> float | None:
    flags = list(supported)
    return sum(flags) / len(flags) if flags else None


def weighted_by_group(values: Iterable[tuple[object, float | None]]) -> float | None:
    """Mean of per-group means weighted by each group's item count (None values left out)."""
    groups: dict[object, list[float]] = {}
    for g, v in values:
        if v is not None:
            groups.setdefault(g, []).append(v)
    n = sum(len(v) for v in groups.values())
    if n == 0:
        return None
    return sum(len(v) / n * (sum(v) / len(v)) for v in groups.values())
