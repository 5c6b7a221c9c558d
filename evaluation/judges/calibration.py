"""Choosing a judge's thresholds on gold labels without fooling ourselves.

Leave-questions-out cross-validation: the gold answers are split by question into folds; for
each fold the setting with the best kappa on the other folds' answers (ties: lower PAS error,
then the earlier setting in the grid) judges the held-out answers. The pooled held-out
decisions give the cross-validated agreement: no answer is judged by a setting chosen on it or
on another answer to the same question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from evaluation.judges.base import Judge
from evaluation.judges.gold import GoldAnswer
from evaluation.judges.validation import AnswerDecisions, answer_errors, decide, kappa


class FoldChoice(BaseModel):
    fold: int
    questions: list[str]
    setting: dict[str, Any]
    train_kappa: float


class CrossValidation(BaseModel):
    folds: list[FoldChoice]
    decisions: list[AnswerDecisions]  # held-out decisions, every gold answer once
    kappa: float
    agreement: float  # percent
    pas_mae: float  # points
    chosen_on_all: dict[str, Any]  # the setting the whole split would choose (the default)


def _pairs(ds: Sequence[AnswerDecisions]) -> list[tuple[bool, bool]]:
    return [(d.judge[k], v) for d in ds for k, v in d.gold.items()]


def _score(ds: Sequence[AnswerDecisions]) -> tuple[float, float]:
    mae = sum(answer_errors(d)[0] for d in ds) / max(len(ds), 1)
    return kappa(_pairs(ds)), -mae


def folds_by_question(items: Sequence[GoldAnswer], k: int) -> list[list[str]]:
    """Question uids in k folds (round robin over the sorted uids: deterministic)."""
    uids = sorted({g.question.uid for g in items})
    k = max(2, min(k, len(uids)))
    return [uids[i::k] for i in range(k)]


def cross_validate(
    items: Sequence[GoldAnswer],
    grid: Sequence[dict[str, Any]],
    make: Callable[..., Judge],
    k: int = 5,
) -> CrossValidation:
    """Held-out decisions of the setting each fold's training answers choose."""
    if not grid:
        raise ValueError("empty grid")
    by_setting: list[dict[str, AnswerDecisions]] = []
    for setting in grid:
        ds, errors = decide(make(**setting), items)
        if errors:
            raise RuntimeError(f"judge failed during calibration: {errors[:3]}")
        by_setting.append({d.answer_id: d for d in ds})
    question_of = {g.answer_id: g.question.uid for g in items}
    choices, held = [], []
    for f, test in enumerate(folds_by_question(items, k)):
        test_set = set(test)
        train_ids = [a for a, q in question_of.items() if q not in test_set]
        test_ids = [a for a, q in question_of.items() if q in test_set]
        scores = [_score([s[a] for a in train_ids]) for s in by_setting]
        best = max(range(len(grid)), key=lambda i: (scores[i], -i))
        choices.append(
            FoldChoice(fold=f, questions=test, setting=grid[best], train_kappa=scores[best][0])
        )
        held += [by_setting[best][a] for a in test_ids]
    all_ids = list(question_of)
    overall = [_score([s[a] for a in all_ids]) for s in by_setting]
    chosen = max(range(len(grid)), key=lambda i: (overall[i], -i))
    pairs = _pairs(held)
    return CrossValidation(
        folds=choices,
        decisions=held,
        kappa=kappa(pairs),
        agreement=100 * sum(a == b for a, b in pairs) / max(len(pairs), 1),
        pas_mae=sum(answer_errors(d)[0] for d in held) / max(len(held), 1),
        chosen_on_all=grid[chosen],
    )
