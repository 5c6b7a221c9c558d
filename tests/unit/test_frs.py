"""FRS aggregation on hand-made sample scores: known confidences -> known top-K selection."""

from __future__ import annotations

import math

import pytest

from evaluation.profiles.frs import (
    QuestionAggregates,
    check_top_k,
    frs_compare,
    frs_table,
    keep_count,
)
from evaluation.runs.questions import EvalInputError
from evaluation.scoring.question_scores import QuestionScore


def score(q: str, sample: int, pas: float, conf: float | None, hop: int = 2) -> QuestionScore:
    return QuestionScore(
        question=q,
        answer=f"{q}-{sample}",
        id=0,
        domain="d",
        theme=None,
        hop=hop,
        precision=pas,
        recall=pas,
        pas=pas,
        partial_precision=pas,
        partial_recall=pas,
        partial_pas=pas,
        empty_a=False,
        faithfulness=None if sample == 2 else 0.5,
        n_claims=2,
        tokens=10,
        tokens_source="usage",
        relevancy=None,
        relevancy_method=None,
        sample=sample,
        confidence=conf,
    )


# q1: the most confident sample is 2, then 0; q2: 1, then 2 (a tie broken by sample index)
SCORES = [
    score("q1", 0, 0.2, -1.0),
    score("q1", 1, 0.0, -3.0),
    score("q1", 2, 1.0, -0.1),
    score("q2", 0, 0.0, -2.0),
    score("q2", 1, 0.6, -0.5),
    score("q2", 2, 0.8, -0.5),
]


@pytest.mark.parametrize(("n", "k", "kept"), [(3, 33, 1), (3, 34, 2), (3, 100, 3), (4, 50, 2)])
def test_keep_count(n, k, kept):
    assert keep_count(n, k) == kept


@pytest.mark.parametrize("k", [0, -5, 100.5, float("nan")])
def test_k_outside_range_is_refused(k):
    with pytest.raises(EvalInputError, match=r"--top-k-percent: .* outside \(0, 100\]"):
        check_top_k(k)


def test_top_k_selection_and_values():
    aggs = QuestionAggregates(SCORES, 50)
    assert aggs.selected == {"q1": [2, 0], "q2": [1, 2]}
    assert aggs.values["top-K%"]["q1"]["PAS"] == pytest.approx(0.6)
    assert aggs.values["top-K%"]["q2"]["PAS"] == pytest.approx(0.7)
    assert aggs.values["all samples"]["q1"]["PAS"] == pytest.approx(0.4)
    assert aggs.values["first sample"]["q2"]["PAS"] == 0.0
    # faithfulness None (no claims) is left out of the mean, not counted as 0
    assert aggs.values["top-K%"]["q1"]["Faithfulness"] == 0.5
    assert not aggs.fallback
    top1 = QuestionAggregates(SCORES, 33)
    assert top1.selected == {"q1": [2], "q2": [1]}


def test_table_rows_are_means_over_questions():
    t = frs_table("t", SCORES, 50)
    rows = {r["aggregation"]: r for r in t.rows}
    assert set(rows) == {"all samples", "first sample", "top-50%"}
    assert math.isclose(rows["top-50%"]["PAS"].mean, (60 + 70) / 2)
    assert math.isclose(rows["first sample"]["PAS"].mean, (20 + 0) / 2)
    assert all(r["flag"] == "" for r in t.rows) and not any("FLAGGED" in n for n in t.notes)


def test_missing_confidence_falls_back_flagged():
    no_conf = [s.model_copy(update={"confidence": None}) for s in SCORES]
    aggs = QuestionAggregates(no_conf, 50)
    assert aggs.fallback == {"q1", "q2"}
    assert aggs.values["top-K%"] == aggs.values["all samples"]
    t = frs_table("t", no_conf, 50)
    top = next(r for r in t.rows if r["aggregation"] == "top-50%")
    assert top["flag"] == "confidence unavailable: = all samples"
    assert t.notes[0].startswith("FLAGGED: confidence unavailable for 2 of 2")


def test_paired_comparison_under_each_aggregation():
    other = [s.model_copy(update={"pas": 1.0, "precision": 1.0, "recall": 1.0}) for s in SCORES]
    t = frs_compare("a", SCORES, "b", other, 50)
    assert len(t.rows) == 3 * 4
    pas = {r["aggregation"]: r for r in t.rows if r["metric"] == "PAS"}
    assert math.isclose(pas["top-50%"]["B-A"], 100 - 65)
    assert math.isclose(pas["first sample"]["B-A"], 100 - 10)
