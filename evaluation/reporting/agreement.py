"""Agreement between two raters on the same items: percent, Cohen's kappa, confusion matrix."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence

from pydantic import BaseModel


class Agreement(BaseModel):
    n: int
    percent: float | None  # 0..100
    kappa: float | None
    labels: list[str]
    confusion: list[list[int]]  # rows = rater 1, columns = rater 2, in `labels` order


def agreement(
    r1: Sequence[Hashable], r2: Sequence[Hashable], labels: Sequence[Hashable] | None = None
) -> Agreement:
    if len(r1) != len(r2):
        raise ValueError(f"raters judged different numbers of items: {len(r1)} vs {len(r2)}")
    labs = list(labels) if labels is not None else sorted(set(r1) | set(r2), key=str)
    if not r1:
        return Agreement(
            n=0,
            percent=None,
            kappa=None,
            labels=[str(x) for x in labs],
            confusion=[[0] * len(labs) for _ in labs],
        )
    from sklearn.metrics import cohen_kappa_score, confusion_matrix

    cm = confusion_matrix(list(r1), list(r2), labels=labs)
    same = sum(a == b for a, b in zip(r1, r2, strict=True))
    with warnings.catch_warnings():  # undefined kappa (one constant label) handled below
        warnings.simplefilter("ignore")
        kappa = float(cohen_kappa_score(list(r1), list(r2), labels=labs))
    if kappa != kappa:  # NaN: both raters constant and identical -> perfect agreement
        kappa = 1.0 if same == len(r1) else 0.0
    return Agreement(
        n=len(r1),
        percent=100.0 * same / len(r1),
        kappa=kappa,
        labels=[str(x) for x in labs],
        confusion=cm.tolist(),
    )
