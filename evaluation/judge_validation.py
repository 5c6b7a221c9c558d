"""How far a judge can be trusted: its path decisions against gold labels.

For every gold answer the judge decides every valid path of the question; we report, overall,
per answer style and per hop: path-level agreement, Cohen's kappa, precision and recall of
"present" (the gold's present paths as the truth), and the mean absolute error (points) of the
per-answer PAS, PPrec and PRec computed from the judge's decisions against those computed from
the gold's. CIs: a bootstrap over answers (paths of one answer are not independent), seeded.
The result (judge identity, kappa, n, date, gold file hash) is stored in the graph so every
report can say how far its judge was measured to agree.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from evaluation.judge_gold import GoldAnswer
from evaluation.judges.base import Judge
from evaluation.judges.votes import SelfAgreement, self_agreement
from evaluation.metrics import path_scores
from evaluation.models import JudgeResult
from evaluation.reporting import CI, Table, bootstrap_cis
from evaluation.runs import now
from kg.store import Store

RESAMPLES = 1000


class AnswerDecisions(BaseModel):
    answer_id: str
    style: str
    hop: int
    judge: dict[str, bool]  # path name -> judged present
    gold: dict[str, bool]
    targets: list[str]
    # paths the judge gave no verdict on: left out of `judge`, `gold` and `targets` (the
    # answer's figures are over the paths it did judge), counted as failed judgements
    failed: list[str] = Field(default_factory=list)
    votes: dict[str, list[bool]] = Field(default_factory=dict)  # a voting judge's votes
    vote_ties: int = 0
    failed_votes: int = 0


class GroupStats(BaseModel):
    group: str
    answers: int
    paths: int
    agreement: CI  # percent
    kappa: CI
    precision: CI  # of "present", gold as truth (None when the judge marks nothing present)
    recall: CI
    pas_mae: CI  # points
    precision_mae: CI
    recall_mae: CI
    judge_present: int
    gold_present: int


class Validation(BaseModel):
    judge: str
    gold_file: str
    gold_hash: str
    at: str
    version: str
    overall: GroupStats
    by_style: list[GroupStats] = Field(default_factory=list)
    by_hop: list[GroupStats] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    failed_paths: int = 0  # path judgements that failed (no verdict), left out of the figures
    self_agreement: SelfAgreement | None = None  # a voting judge (`--judge-votes N`)

    @property
    def uid(self) -> str:
        return validation_uid(self.judge, self.gold_hash)


def validation_uid(judge: str, gold_hash: str) -> str:
    return "jv-" + hashlib.sha256(f"{judge}\x00{gold_hash}".encode()).hexdigest()[:16]


def _package_version() -> str:
    try:
        return version("perspectivekg")
    except PackageNotFoundError:  # pragma: no cover - source checkout without install
        return "0+unknown"


async def _decide(
    judge: Judge,
    items: Sequence[GoldAnswer],
    errors: list[str],
    progress: Callable[[int, int], None] | None,
) -> list[AnswerDecisions]:
    done = 0
    batch_judge = getattr(judge, "judge_batch", None)
    batched: dict[str, JudgeResult] = {}
    if batch_judge is not None:  # an offline judge: all answers at once
        results = await asyncio.to_thread(batch_judge, [(g.question, g.answer, []) for g in items])
        batched = {g.answer_id: r for g, r in zip(items, results, strict=True)}

    async def one(g: GoldAnswer) -> AnswerDecisions | None:
        nonlocal done
        try:
            result = batched.get(g.answer_id) or await judge.judge(g.question, g.answer, [])
        except Exception as exc:  # noqa: BLE001 - a failed item is reported, not fatal
            errors.append(f"{g.answer_id}: {type(exc).__name__}: {exc}")
            return None
        finally:
            done += 1
            if progress:
                progress(done, len(items))
        names = {p.uid: p.name for p in g.question.paths if p.name}
        decided = {names[v.path_uid]: v.present for v in result.verdicts if v.path_uid in names}
        failed = sorted(names[u] for u in result.failed_paths if u in names)
        kept = [k for k in g.present if k not in failed]
        return AnswerDecisions(
            answer_id=g.answer_id,
            style=g.style,
            hop=g.hop,
            judge={k: decided.get(k, False) for k in kept},
            gold={k: g.present[k] for k in kept},
            targets=[p.name for p in g.question.paths if p.target and p.name in kept],
            failed=failed,
            votes={names[v.path_uid]: v.votes for v in result.verdicts if v.votes},
            vote_ties=result.vote_ties,
            failed_votes=result.failed_votes,
        )

    try:
        out = await asyncio.gather(*(one(g) for g in items))
    finally:
        client = getattr(judge, "client", None)  # an LLM judge's HTTP pool belongs to this loop
        if client is not None:
            await client.aclose()
    return [d for d in out if d is not None]


def decide(
    judge: Judge,
    items: Sequence[GoldAnswer],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[AnswerDecisions], list[str]]:
    """The judge's decision on every gold path (answers the judge failed on are listed)."""
    errors: list[str] = []
    return asyncio.run(_decide(judge, items, errors, progress)), errors


# -- statistics --------------------------------------------------------------------------------


def _confusion(d: AnswerDecisions) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of "present", gold as the truth."""
    tp = sum(d.judge[k] and v for k, v in d.gold.items())
    fp = sum(d.judge[k] and not v for k, v in d.gold.items())
    fn = sum(not d.judge[k] and v for k, v in d.gold.items())
    return tp, fp, fn, len(d.gold) - tp - fp - fn


def _ratios(c: np.ndarray) -> dict[str, np.ndarray]:
    """Agreement (%), kappa, precision, recall from summed (…, 4) confusion counts."""
    tp, fp, fn, tn = (c[..., i] for i in range(4))
    n = tp + fp + fn + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        po = (tp + tn) / n
        pj, pg = (tp + fp) / n, (tp + fn) / n
        pe = pj * pg + (1 - pj) * (1 - pg)
        kappa = np.where(pe < 1, (po - pe) / (1 - pe), np.where(po == 1, 1.0, 0.0))
        return {
            "agreement": 100 * po,
            "kappa": kappa,
            "precision": tp / (tp + fp),
            "recall": tp / (tp + fn),
        }


def kappa(pairs: Sequence[tuple[bool, bool]]) -> float:
    """Cohen's kappa of two boolean raters (1.0 when both are constant and equal)."""
    c = np.array(
        [
            sum(a and b for a, b in pairs),
            sum(a and not b for a, b in pairs),
            sum(b and not a for a, b in pairs),
            sum(not a and not b for a, b in pairs),
        ],
        dtype=float,
    )
    return float(_ratios(c)["kappa"])


def _ci(point: float, dist: np.ndarray, n: int) -> CI:
    if point != point:  # NaN: undefined (no present path on one side)
        return CI(mean=None, low=None, high=None, n=n)
    dist = dist[~np.isnan(dist)]
    if dist.size == 0:
        return CI(mean=float(point), low=None, high=None, n=n)
    low, high = np.quantile(dist, [0.025, 0.975])
    return CI(mean=float(point), low=float(low), high=float(high), n=n)


def answer_errors(d: AnswerDecisions) -> tuple[float, float, float]:
    """|PAS|, |PPrec|, |PRec| differences in points between judge and gold decisions."""
    j = path_scores(d.targets, [k for k, v in d.judge.items() if v])
    g = path_scores(d.targets, [k for k, v in d.gold.items() if v])
    return (
        100 * abs(j.pas - g.pas),
        100 * abs(j.precision - g.precision),
        100 * abs(j.recall - g.recall),
    )


def group_stats(name: str, ds: Sequence[AnswerDecisions], seed: int = 0) -> GroupStats:
    counts = np.array([_confusion(d) for d in ds], dtype=float).reshape(-1, 4)
    point = _ratios(counts.sum(axis=0))
    rng = np.random.default_rng(seed)
    n = len(ds)
    if n:
        weights = rng.multinomial(n, [1 / n] * n, size=RESAMPLES).astype(float)  # (B, n)
        dist = _ratios(weights @ counts)
    else:
        dist = {k: np.array([]) for k in point}
    errs = [answer_errors(d) for d in ds]
    maes = bootstrap_cis(
        {
            "pas": [e[0] for e in errs],
            "precision": [e[1] for e in errs],
            "recall": [e[2] for e in errs],
        },
        resamples=RESAMPLES,
        seed=seed,
    )
    paths = int(counts.sum())
    return GroupStats(
        group=name,
        answers=n,
        paths=paths,
        **{k: _ci(float(point[k]), dist[k], paths) for k in point},
        pas_mae=maes["pas"],
        precision_mae=maes["precision"],
        recall_mae=maes["recall"],
        judge_present=int(counts[:, 0].sum() + counts[:, 1].sum()),
        gold_present=int(counts[:, 0].sum() + counts[:, 2].sum()),
    )


def summarize(
    judge_name: str,
    ds: Sequence[AnswerDecisions],
    gold_file: Path | str,
    gold_hash: str,
    errors: list[str] | None = None,
    seed: int = 0,
    votes: int | None = None,
) -> Validation:
    """`votes`: samples a voting judge asked per decision (default: the most any path got)."""
    styles = sorted({d.style for d in ds})
    hops = sorted({d.hop for d in ds})
    votes = votes or max((len(v) for d in ds for v in d.votes.values()), default=1)
    return Validation(
        judge=judge_name,
        gold_file=str(gold_file),
        gold_hash=gold_hash,
        at=now(),
        version=_package_version(),
        overall=group_stats("all", ds, seed),
        by_style=[group_stats(s, [d for d in ds if d.style == s], seed) for s in styles],
        by_hop=[group_stats(f"{h}-hop", [d for d in ds if d.hop == h], seed) for h in hops],
        errors=list(errors or []),
        failed_paths=sum(len(d.failed) for d in ds),
        self_agreement=(
            self_agreement(
                [v for d in ds for v in d.votes.values()],
                votes,
                ties=sum(d.vote_ties for d in ds),
                failed_votes=sum(d.failed_votes for d in ds),
            )
            if votes > 1
            else None
        ),
    )


def validation_table(v: Validation) -> Table:
    cols = [
        "group",
        "answers",
        "paths",
        "agreement %",
        "kappa",
        "precision",
        "recall",
        "PAS MAE",
        "PPrec MAE",
        "PRec MAE",
        "judge present",
        "gold present",
    ]
    rows = []
    for g in [v.overall, *v.by_style, *v.by_hop]:
        rows.append(
            {
                "group": g.group,
                "answers": g.answers,
                "paths": g.paths,
                "agreement %": g.agreement,
                "kappa": g.kappa,
                "precision": g.precision,
                "recall": g.recall,
                "PAS MAE": g.pas_mae,
                "PPrec MAE": g.precision_mae,
                "PRec MAE": g.recall_mae,
                "judge present": g.judge_present,
                "gold present": g.gold_present,
            }
        )
    notes = [
        f"gold file {v.gold_file} (sha256 {v.gold_hash[:12]}), {v.at}",
        "MAE in points (0-100) of per-answer scores from the judge's decisions vs the "
        "gold's; CIs: 95% bootstrap over answers",
    ]
    if v.errors:
        notes.append(f"{len(v.errors)} answer(s) the judge failed on are left out")
    if v.failed_paths:
        notes.append(
            f"{v.failed_paths} path judgement(s) failed (the judge gave no verdict) and are "
            "left out"
        )
    if v.self_agreement is not None:
        notes.append(v.self_agreement.line())
    return Table(title=f"judge validation: {v.judge}", columns=cols, rows=rows, notes=notes)


# -- storage -----------------------------------------------------------------------------------


def store_validation(store: Store, v: Validation) -> None:
    o = v.overall
    store.query(
        "eval/judge_validation_write",
        uid=v.uid,
        props={
            "judge": v.judge,
            "gold_file": v.gold_file,
            "gold_hash": v.gold_hash,
            "at": v.at,
            "version": v.version,
            "answers": o.answers,
            "paths": o.paths,
            "kappa": o.kappa.mean,
            "kappa_low": o.kappa.low,
            "kappa_high": o.kappa.high,
            "agreement": o.agreement.mean,
            "pas_mae": o.pas_mae.mean,
            "precision": o.precision.mean,
            "recall": o.recall.mean,
            "failed": len(v.errors),
            "failed_paths": v.failed_paths,
            "self_agreement": (
                v.self_agreement.fleiss_kappa if v.self_agreement is not None else None
            ),
            "summary": v.model_dump_json(),
        },
    )


def latest_validations(store: Store, judges: Sequence[str]) -> dict[str, dict[str, Any]]:
    """judge name -> its most recent stored validation (judges never validated are absent)."""
    rows = store.query("eval/judge_validations", judges=list(dict.fromkeys(judges)))
    out: dict[str, dict[str, Any]] = {}
    for r in rows:  # newest first
        out.setdefault(r["v"]["judge"], r["v"])
    return out


def trust_line(judge: str | None, validation: dict[str, Any] | None) -> str:
    """How far a judge can be trusted, in one line for reports."""
    if not judge:
        return "judge: unknown"
    if validation is None:
        return f"judge {judge}: unvalidated (no `kg judge validate` result in the graph)"
    k = validation.get("kappa")
    lo, hi = validation.get("kappa_low"), validation.get("kappa_high")
    ci = f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else ""
    kap = f"{k:.2f}{ci}" if k is not None else "undefined"
    gold = Path(str(validation.get("gold_file") or "?")).name
    return (
        f"judge {judge}: Cohen's kappa {kap} vs gold labels on {validation.get('paths')} "
        f"path decisions ({validation.get('answers')} answers, {gold}, sha256 "
        f"{str(validation.get('gold_hash') or '')[:12]}, {str(validation.get('at'))[:10]})"
    )
