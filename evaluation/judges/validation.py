"""How far a judge can be trusted: its path decisions against gold labels.

For every gold answer the judge decides every valid path of the question; we report, overall,
per kind of answers (natural / constructed, see evaluation/judges/gold_kinds.py), per answer
style and per hop: path-level agreement, Cohen's kappa, precision and recall of
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from evaluation.judges.base import Judge
from evaluation.judges.gold import GoldAnswer
from evaluation.judges.gold_kinds import KINDS, file_kind
from evaluation.judges.votes import SelfAgreement, self_agreement
from evaluation.models import JudgeResult
from evaluation.reporting import CI, Table, bootstrap_cis
from evaluation.scoring.metrics import path_scores
from kg import __version__
from kg.store import Store

RESAMPLES = 1000


class AnswerDecisions(BaseModel):
    answer_id: str
    style: str
    kind: str = "unknown"
    setting: str | None = None
    words: int = 0  # length of the answer in words
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


class GoldProfile(BaseModel):
    """What the gold answers of one kind look like: a run whose answers differ was not
    validated by them."""

    kind: str
    answers: int
    words_min: int
    words_median: float
    words_max: int
    settings: list[str]  # the run settings its styles stand for


class Validation(BaseModel):
    judge: str
    gold_file: str
    gold_hash: str
    at: str
    version: str
    gold_kind: str = "unknown"  # natural, constructed, mixed or unknown
    overall: GroupStats
    by_kind: list[GroupStats] = Field(default_factory=list)
    profiles: list[GoldProfile] = Field(default_factory=list)
    by_style: list[GroupStats] = Field(default_factory=list)
    style_kinds: dict[str, str] = Field(default_factory=dict)
    by_hop: list[GroupStats] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    failed_paths: int = 0  # path judgements that failed (no verdict), left out of the figures
    self_agreement: SelfAgreement | None = None  # a voting judge (`--judge-votes N`)

    @property
    def uid(self) -> str:
        return validation_uid(self.judge, self.gold_hash)


def validation_uid(judge: str, gold_hash: str) -> str:
    return "jv-" + hashlib.sha256(f"{judge}\x00{gold_hash}".encode()).hexdigest()[:16]


def word_count(text: str) -> int:
    return len(text.split())


async def _decide(
    judge: Judge,
    items: Sequence[GoldAnswer],
    errors: list[str],
    progress: Callable[[int, int], None] | None,
) -> list[AnswerDecisions]:
    done = 0
    batched: dict[str, JudgeResult] = {}
    if judge.batches:  # e.g. an offline judge: all answers at once
        results = await asyncio.to_thread(
            judge.judge_batch, [(g.question, g.answer, []) for g in items]
        )
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
            kind=g.kind,
            setting=g.setting,
            words=word_count(g.answer),
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
        await judge.aclose()  # an LLM judge's HTTP pool belongs to this loop
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


def gold_profile(kind: str, ds: Sequence[AnswerDecisions]) -> GoldProfile:
    words = [d.words for d in ds]
    return GoldProfile(
        kind=kind,
        answers=len(ds),
        words_min=min(words),
        words_median=float(np.median(words)),
        words_max=max(words),
        settings=sorted({d.setting for d in ds if d.setting}),
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
    kinds = [k for k in KINDS if any(d.kind == k for d in ds)]
    votes = votes or max((len(v) for d in ds for v in d.votes.values()), default=1)
    return Validation(
        judge=judge_name,
        gold_file=str(gold_file),
        gold_hash=gold_hash,
        # to the microsecond: the newest of two validations in one second is still known
        at=datetime.now(UTC).isoformat(timespec="microseconds"),
        version=__version__,
        gold_kind=file_kind(set(kinds)),
        overall=group_stats("all", ds, seed),
        by_kind=[group_stats(k, [d for d in ds if d.kind == k], seed) for k in kinds],
        profiles=[gold_profile(k, [d for d in ds if d.kind == k]) for k in kinds],
        by_style=[group_stats(s, [d for d in ds if d.style == s], seed) for s in styles],
        style_kinds={d.style: d.kind for d in ds},
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
    groups = [(g.group, g) for g in [v.overall, *v.by_kind]]
    groups += [(f"{g.group} ({v.style_kinds.get(g.group, '?')})", g) for g in v.by_style]
    groups += [(g.group, g) for g in v.by_hop]
    for label, g in groups:
        rows.append(
            {
                "group": label,
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
        f"gold file {Path(v.gold_file).name} (sha256 {v.gold_hash[:12]}), {v.gold_kind} "
        f"answers, {v.at[:19]}",
        *(
            f"{p.kind} gold answers: {p.answers}, {p.words_min}-{p.words_max} words "
            f"(median {p.words_median:.0f}), settings covered: {', '.join(p.settings) or 'none'}"
            for p in v.profiles
        ),
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
    return Table(
        title=f"judge validation: {v.judge}",
        columns=cols,
        rows=rows,
        notes=notes,
        digits={"agreement %": 1, "PAS MAE": 1, "PPrec MAE": 1, "PRec MAE": 1},
    )


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
            "gold_kind": v.gold_kind,
            **_kind_props(v),
            "failed_paths": v.failed_paths,
            "self_agreement": (
                v.self_agreement.fleiss_kappa if v.self_agreement is not None else None
            ),
            "summary": v.model_dump_json(),
        },
    )


def _kind_props(v: Validation) -> dict[str, Any]:
    """Per kind of answers: `<kind>_kappa` (+ CI, paths, answers), `<kind>_words` [min,
    median, max] and `<kind>_settings`, so reports read them without the summary."""
    out: dict[str, Any] = {}
    profiles = {p.kind: p for p in v.profiles}
    for g in v.by_kind:
        p = profiles[g.group]
        out |= {
            f"{g.group}_kappa": g.kappa.mean,
            f"{g.group}_kappa_low": g.kappa.low,
            f"{g.group}_kappa_high": g.kappa.high,
            f"{g.group}_agreement": g.agreement.mean,
            f"{g.group}_paths": g.paths,
            f"{g.group}_answers": g.answers,
            f"{g.group}_words": [p.words_min, p.words_median, p.words_max],
            f"{g.group}_settings": p.settings,
        }
    return out


def latest_validations(store: Store, judges: Sequence[str]) -> dict[str, dict[str, Any]]:
    """judge name -> its most recent stored validation (judges never validated are absent)."""
    rows = store.query("eval/judge_validations", judges=list(dict.fromkeys(judges)))
    out: dict[str, dict[str, Any]] = {}
    for r in rows:  # newest first
        out.setdefault(r["v"]["judge"], r["v"])
    return out


def trust_line(judge: str | None, validation: dict[str, Any] | None) -> str:
    """How far a judge can be trusted, in one line, from one stored validation."""
    from evaluation.judges.trust import judge_trust

    return judge_trust(judge, [validation] if validation else []).line()
