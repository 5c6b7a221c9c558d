"""Percentile bootstrap confidence intervals (plain, stratified, paired). Seeded, vectorized."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

DEFAULT_RESAMPLES = 1000


class CI(BaseModel):
    mean: float | None
    low: float | None
    high: float | None
    n: int


class PairedResult(BaseModel):
    n: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None  # mean(b - a)
    low: float | None
    high: float | None
    p_value: float | None  # two-sided, from the bootstrap distribution of the difference


def _clean(values: Sequence[float | None]) -> np.ndarray:
    arr = np.array([np.nan if v is None else v for v in values], dtype=float)
    return arr


def bootstrap_ci(
    values: Sequence[float | None], *, strata: Sequence[object] | None = None,
    resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, seed: int = 0,
) -> CI:
    """Mean and percentile CI; None/NaN values are left out (and not counted in n).

    With `strata`, each stratum is resampled on its own and the statistic is the mean of the
    stratum means weighted by stratum size (e.g. overall = weighted by questions per hop).
    """
    x = _clean(values)
    keep = ~np.isnan(x)
    if strata is None:
        groups = [x[keep]]
    else:
        s = np.asarray(list(strata), dtype=object)[keep]
        xs = x[keep]
        groups = [xs[s == g] for g in dict.fromkeys(s.tolist())]
    groups = [g for g in groups if g.size]
    n = int(sum(g.size for g in groups))
    if n == 0:
        return CI(mean=None, low=None, high=None, n=0)
    rng = np.random.default_rng(seed)
    weights = np.array([g.size for g in groups], dtype=float) / n
    point = float(sum(w * g.mean() for w, g in zip(weights, groups, strict=True)))
    dist = np.zeros(resamples)
    for w, g in zip(weights, groups, strict=True):
        idx = rng.integers(0, g.size, size=(resamples, g.size))
        dist += w * g[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(dist, [alpha, 1 - alpha])
    return CI(mean=point, low=float(low), high=float(high), n=n)


def paired_bootstrap(
    a: Sequence[float | None], b: Sequence[float | None], *,
    resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, seed: int = 0,
) -> PairedResult:
    """Difference b - a over items present in both (same order = same item)."""
    xa, xb = _clean(a), _clean(b)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples differ in length: {xa.size} vs {xb.size}")
    keep = ~(np.isnan(xa) | np.isnan(xb))
    xa, xb = xa[keep], xb[keep]
    n = int(xa.size)
    if n == 0:
        return PairedResult(n=0, mean_a=None, mean_b=None, diff=None, low=None, high=None,
                            p_value=None)
    d = xb - xa
    rng = np.random.default_rng(seed)
    dist = d[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(dist, [alpha, 1 - alpha])
    # two-sided p: how often the resampled difference lands on the other side of zero
    if d.mean() == 0:
        p = 1.0
    else:
        other = np.mean(dist <= 0) if d.mean() > 0 else np.mean(dist >= 0)
        p = float(min(1.0, 2 * other))
    return PairedResult(n=n, mean_a=float(xa.mean()), mean_b=float(xb.mean()),
                        diff=float(d.mean()), low=float(low), high=float(high), p_value=p)
