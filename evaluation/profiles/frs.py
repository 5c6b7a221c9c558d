"""FRS-style aggregation of sampled answers (Filtered Reasoning Score, issue 13).

A run with `--samples N` stores N judged answers per question. Per question, the scores of its
samples are aggregated three ways, then averaged over questions (bootstrap 95% CIs over
questions, weighted by questions per hop like the report's Overall row):
- all samples: the mean over every sample;
- first sample: sample 0 only (the answer a run without samples gives);
- top-K%: the mean over the ceil(K% of N) samples with the highest confidence (mean token
  log-probability; ties: lower sample index first), at least one.
A question whose samples lack a confidence (the server returned no logprobs) cannot be
filtered: its top-K% value is its all-samples value, and the table says so (never silently).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable

from evaluation.reporting import Table, bootstrap_cis, paired_bootstrap
from evaluation.runs.questions import EvalInputError
from evaluation.scoring.question_scores import QuestionScore

DEFAULT_TOP_K = 50.0
# the quality measures FRS aggregates (in %, like the report's tables)
FRS_METRICS: dict[str, Callable[[QuestionScore], float | None]] = {
    "PAS": lambda s: s.pas,
    "PPrec": lambda s: s.precision,
    "PRec": lambda s: s.recall,
    "Faithfulness": lambda s: s.faithfulness,
}
AGGREGATIONS = ("all samples", "first sample", "top-K%")


def check_top_k(k: float) -> float:
    if not (0 < k <= 100) or math.isnan(k):
        raise EvalInputError(f"--top-k-percent: {k} is outside (0, 100]")
    return k


def keep_count(n: int, k: float) -> int:
    """How many of n samples the top-K% keeps: ceil(n*K/100), at least one."""
    return max(1, math.ceil(n * k / 100 - 1e-9))


def top_k(samples: list[QuestionScore], k: float) -> tuple[list[QuestionScore], bool]:
    """The most confident samples of one question, and whether confidence was missing (then
    every sample is returned: the unfiltered aggregate)."""
    if any(s.confidence is None for s in samples):
        return samples, True
    ranked = sorted(samples, key=lambda s: (-(s.confidence or 0.0), s.sample))
    return ranked[: keep_count(len(samples), k)], False


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


class QuestionAggregates:
    """Per question: its hop and, per aggregation, the aggregated value of every metric."""

    def __init__(self, scores: list[QuestionScore], k: float) -> None:
        check_top_k(k)
        by_q: dict[str, list[QuestionScore]] = defaultdict(list)
        for s in scores:
            by_q[s.question].append(s)
        self.k = k
        self.questions = sorted(by_q)
        self.hop = {q: by_q[q][0].hop for q in self.questions}
        self.samples = {q: len(by_q[q]) for q in self.questions}
        self.fallback: set[str] = set()
        self.selected: dict[str, list[int]] = {}  # question -> sample indexes kept by top-K%
        self.values: dict[str, dict[str, dict[str, float | None]]] = {a: {} for a in AGGREGATIONS}
        for q in self.questions:
            group = sorted(by_q[q], key=lambda s: s.sample)
            chosen, missing = top_k(group, k)
            if missing:
                self.fallback.add(q)
            self.selected[q] = [s.sample for s in chosen]
            first = [s for s in group if s.sample == 0]
            for agg, members in (
                ("all samples", group),
                ("first sample", first),
                ("top-K%", chosen),
            ):
                self.values[agg][q] = {
                    m: (_mean([get(s) for s in members]) if members else None)
                    for m, get in FRS_METRICS.items()
                }

    def column(self, agg: str, metric: str, questions: list[str]) -> list[float | None]:
        return [
            None if (v := self.values[agg][q][metric]) is None else v * 100.0 for q in questions
        ]

    def fallback_note(self) -> str | None:
        if not self.fallback:
            return None
        n, total = len(self.fallback), len(self.questions)
        return (
            f"FLAGGED: confidence unavailable for {n} of {total} question(s) (the server "
            "returned no token logprobs): their top-K% value falls back to the unfiltered "
            "all-samples aggregate."
        )


def _label(agg: str, k: float) -> str:
    return f"top-{k:g}%" if agg == "top-K%" else agg


def _flag(agg: str, aggs: QuestionAggregates) -> str:
    if agg != "top-K%" or not aggs.fallback:
        return ""
    if len(aggs.fallback) == len(aggs.questions):
        return "confidence unavailable: = all samples"
    return f"fallback for {len(aggs.fallback)} question(s)"


def frs_table(title: str, scores: list[QuestionScore], k: float, seed: int = 0) -> Table:
    """One row per aggregation: mean [95% CI] of every FRS metric over the run's questions."""
    aggs = QuestionAggregates(scores, k)
    qs = aggs.questions
    strata = [aggs.hop[q] for q in qs]
    rows = []
    for agg in AGGREGATIONS:
        columns = {m: aggs.column(agg, m, qs) for m in FRS_METRICS}
        cis = bootstrap_cis(columns, strata=strata, seed=seed)
        rows.append({"aggregation": _label(agg, k), "n": len(qs), **cis, "flag": _flag(agg, aggs)})
    per_q = sorted(set(aggs.samples.values()))
    notes = [
        f"Samples per question: {', '.join(map(str, per_q))}; top-{k:g}% keeps the "
        "ceil(K% of N) samples with the highest mean token log-probability (at least one).",
        "Cells: mean over questions of the per-question aggregate, in %, [bootstrap 95% CI], "
        "weighted by questions per hop.",
    ]
    if (note := aggs.fallback_note()) is not None:
        notes.insert(0, note)
    return Table(
        title=title,
        columns=["aggregation", "n", *FRS_METRICS, "flag"],
        rows=rows,
        notes=notes,
        digits=dict.fromkeys(FRS_METRICS, 1),  # percentages
    )


def frs_compare(
    run_a: str,
    sa: list[QuestionScore],
    run_b: str,
    sb: list[QuestionScore],
    k: float,
    seed: int = 0,
) -> Table:
    """Paired bootstrap of B - A under each aggregation, over the questions both judged."""
    a, b = QuestionAggregates(sa, k), QuestionAggregates(sb, k)
    shared = sorted(set(a.questions) & set(b.questions))
    if not shared:
        raise EvalInputError(f"runs {run_a!r} and {run_b!r} share no judged question")
    rows = []
    for agg in AGGREGATIONS:
        for metric in FRS_METRICS:
            r = paired_bootstrap(
                a.column(agg, metric, shared), b.column(agg, metric, shared), seed=seed
            )
            rows.append(
                {
                    "aggregation": _label(agg, k),
                    "metric": metric,
                    **r.row(),
                    "flag": "; ".join(
                        f"{name}: {f}" for name, x in (("A", a), ("B", b)) if (f := _flag(agg, x))
                    ),
                }
            )
    notes = ["Paired bootstrap (1000 resamples) over shared questions; p is two-sided."]
    notes += [f"{name}: {n}" for name, x in (("A", a), ("B", b)) if (n := x.fallback_note())]
    return Table(
        title=(
            f"Paired comparison by aggregation (top-{k:g}%): A = {run_a}, B = {run_b} "
            f"({len(shared)} shared questions)"
        ),
        columns=[
            "aggregation",
            "metric",
            "n",
            "A",
            "B",
            "B-A",
            "95% CI low",
            "95% CI high",
            "p",
            "flag",
        ],
        rows=rows,
        notes=notes,
    )
