"""Metrics of the three tasks, exactly as the issue defines them.

Every item counts: an invalid reply is wrong for accuracy and scores 0 NIE; MAE is over valid
replies only (reported with their number). Per-item score lists are kept for bootstrap CIs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.perspectra.concession import is_concession_rebuttal
from evaluation.perspectra.reply_parsers import Parsed


def _share(k: int, n: int) -> float:
    return k / n if n else 0.0


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def nie(pred: int, gold: int) -> float:
    """Normalized inverse error: 1 / (1 + |pred - gold| / max(1, gold))."""
    return 1.0 / (1.0 + abs(pred - gold) / max(1, gold))


@dataclass
class TaskScores:
    """Aggregates (`summary`) and per-item columns (`per_item`) for CIs and reports."""

    summary: dict[str, float]
    per_item: dict[str, list[float]]


def t1_scores(golds: Sequence[int], preds: Sequence[Parsed]) -> TaskScores:
    n = len(golds)
    correct, nies, abs_err = [], [], []
    over = under = invalid = 0
    for gold, p in zip(golds, preds, strict=True):
        if not p.valid:
            invalid += 1
            correct.append(0.0)
            nies.append(0.0)
            continue
        v = int(p.value)  # type: ignore[arg-type]
        correct.append(float(v == gold))
        nies.append(nie(v, gold))
        abs_err.append(float(abs(v - gold)))
        over += v > gold
        under += v < gold
    errors = n - int(sum(correct))
    return TaskScores(
        summary={
            "n": n,
            "accuracy": _mean(correct),
            "mae": _mean(abs_err),
            "n_valid": n - invalid,
            "nie": _mean(nies),
            "over_split": _share(over, n),
            "under_count": _share(under, n),
            "invalid": _share(invalid, n),
            "errors_over_split": _share(over, errors),
            "errors_under_count": _share(under, errors),
            "errors_invalid": _share(invalid, errors),
        },
        per_item={"accuracy": correct, "nie": nies, "abs_error": abs_err},
    )


def t2_scores(
    golds: Sequence[str],
    preds: Sequence[Parsed],
    option_stances: Sequence[Sequence[str]],
    gold_stances: Sequence[str],
) -> TaskScores:
    n = len(golds)
    exact, stance = [], []
    same_side = opposite = invalid = 0
    for gold, p, stances, gs in zip(golds, preds, option_stances, gold_stances, strict=True):
        if not p.valid:
            invalid += 1
            exact.append(0.0)
            stance.append(0.0)
            continue
        chosen = stances["ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(p.value)]  # type: ignore[arg-type]
        exact.append(float(p.value == gold))
        stance.append(float(chosen == gs))
        if p.value != gold:
            same_side += chosen == gs
            opposite += chosen != gs
    wrong = same_side + opposite
    return TaskScores(
        summary={
            "n": n,
            "accuracy": _mean(exact),
            "stance_accuracy": _mean(stance),
            "same_side_confusion": _share(same_side, n),
            "opposite_side_confusion": _share(opposite, n),
            "invalid": _share(invalid, n),
            "errors_same_side": _share(same_side, wrong + invalid),
            "errors_opposite_side": _share(opposite, wrong + invalid),
            "errors_invalid": _share(invalid, wrong + invalid),
        },
        per_item={"accuracy": exact, "stance_accuracy": stance},
    )


def t3_scores(golds: Sequence[str], preds: Sequence[Parsed], texts: Sequence[str]) -> TaskScores:
    n = len(golds)
    correct, concession = [], []
    invalid = 0
    for gold, p, text in zip(golds, preds, texts, strict=True):
        invalid += not p.valid
        correct.append(float(p.valid and p.value == gold))
        # a bundle (t3 --bundle N) counts when any of its paragraphs concedes and turns
        concession.append(float(any(is_concession_rebuttal(part) for part in text.split("\n\n"))))
    errors = [c for ok, c in zip(correct, concession, strict=True) if not ok]
    conc_items = [ok for ok, c in zip(correct, concession, strict=True) if c]
    other_items = [ok for ok, c in zip(correct, concession, strict=True) if not c]
    return TaskScores(
        summary={
            "n": n,
            "accuracy": _mean(correct),
            "invalid": _share(invalid, n),
            "concession_share_items": _mean(concession),
            "concession_share_errors": _mean(errors),
            "accuracy_concession": _mean(conc_items),
            "accuracy_other": _mean(other_items),
            "n_concession": len(conc_items),
        },
        per_item={"accuracy": correct},
    )
