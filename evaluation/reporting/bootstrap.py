"""Percentile bootstrap confidence intervals (plain, stratified, paired). Seeded, vectorized.

Resamples are drawn once per group as a matrix of multinomial counts, so many metrics over the
same items share their resamples (one matrix product for all of them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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

    def row(self) -> dict[str, float | int | None]:
        """The columns of a comparison table row (A, B, B-A, its CI and p)."""
        return {
            "n": self.n,
            "A": self.mean_a,
            "B": self.mean_b,
            "B-A": self.diff,
            "95% CI low": self.low,
            "95% CI high": self.high,
            "p": self.p_value,
        }


def _clean(values: Sequence[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """(resamples, n) matrix: how often each item is drawn in each resample."""
    draws = rng.integers(0, n, size=(resamples, n)) + (np.arange(resamples) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)


def bootstrap_cis(
    columns: Mapping[str, Sequence[float | None]],
    *,
    strata: Sequence[object] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, CI]:
    """Mean and percentile CI of every column (same items, shared resamples).

    None/NaN values are left out of their column (and not counted in its n). With `strata`,
    items are resampled within their stratum and the statistic is the mean of the stratum
    means weighted by each stratum's item count (e.g. overall = weighted by questions per hop).
    """
    names = list(columns)
    if not names:
        return {}
    x = np.column_stack([_clean(columns[k]) for k in names])  # (n, m)
    n_items = x.shape[0]
    labels = list(strata) if strata is not None else [0] * n_items
    if len(labels) != n_items:
        raise ValueError(f"{len(labels)} strata for {n_items} items")
    rng = np.random.default_rng(seed)
    valid = ~np.isnan(x)
    xz = np.where(valid, x, 0.0)
    sums = np.zeros(len(names))
    counts = np.zeros(len(names))
    dist_parts = []  # per stratum: (resample means (B, m), valid counts (m,))
    for g in dict.fromkeys(labels):
        rows = np.array([lab == g for lab in labels])
        xs, vs = xz[rows], valid[rows].astype(float)
        w = _counts(rng, int(rows.sum()), resamples)  # (B, n_g)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (w @ xs) / (w @ vs)  # (B, m); NaN where a resample drew no valid item
        dist_parts.append((means, vs.sum(axis=0)))
        sums += xs.sum(axis=0)
        counts += vs.sum(axis=0)
    out = {}
    alpha = (1 - confidence) / 2
    for j, name in enumerate(names):
        n = int(counts[j])
        if n == 0:
            out[name] = CI(mean=None, low=None, high=None, n=0)
            continue
        dist = np.zeros(resamples)
        for means, nv in dist_parts:
            if nv[j] > 0:
                col = means[:, j]
                # a resample with no valid item in a stratum keeps that stratum's point mean
                point_g = np.nanmean(col) if np.isnan(col).any() else None
                col = np.where(np.isnan(col), point_g if point_g is not None else 0.0, col)
                dist += nv[j] / n * col
        col_valid = x[valid[:, j], j]
        # a mean of resampled values cannot leave their range: clip matrix-product float noise
        dist = np.clip(dist, col_valid.min(), col_valid.max())
        low, high = np.quantile(dist, [alpha, 1 - alpha])
        out[name] = CI(mean=float(sums[j] / n), low=float(low), high=float(high), n=n)
    return out


def bootstrap_ci(
    values: Sequence[float | None],
    *,
    strata: Sequence[object] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """Mean and percentile CI of one series (see `bootstrap_cis`)."""
    return bootstrap_cis(
        {"x": values}, strata=strata, resamples=resamples, confidence=confidence, seed=seed
    )["x"]


def paired_bootstrap(
    a: Sequence[float | None],
    b: Sequence[float | None],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedResult:
    """Difference b - a over items present in both (same order = same item)."""
    xa, xb = _clean(a), _clean(b)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples differ in length: {xa.size} vs {xb.size}")
    keep = ~(np.isnan(xa) | np.isnan(xb))
    xa, xb = xa[keep], xb[keep]
    n = int(xa.size)
    if n == 0:
        return PairedResult(
            n=0, mean_a=None, mean_b=None, diff=None, low=None, high=None, p_value=None
        )
    d = xb - xa
    rng = np.random.default_rng(seed)
    dist = (_counts(rng, n, resamples) @ d) / n
    alpha = (1 - confidence) / 2
    low, high = np.quantile(dist, [alpha, 1 - alpha])
    # two-sided p: how often the resampled difference lands on the other side of zero
    if d.mean() == 0:
        p = 1.0
    else:
        other = np.mean(dist <= 0) if d.mean() > 0 else np.mean(dist >= 0)
        p = float(min(1.0, 2 * other))
    return PairedResult(
        n=n,
        mean_a=float(xa.mean()),
        mean_b=float(xb.mean()),
        diff=float(d.mean()),
        low=float(low),
        high=float(high),
        p_value=p,
    )
