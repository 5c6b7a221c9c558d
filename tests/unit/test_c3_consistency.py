"""C3 consistency: Jaccard of judged path sets, answer similarity, Spearman, and the prompt
a context perturbation gives."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.models import Strategy
from evaluation.profiles.consistency import INFORMATIVE_MIN, jaccard, per_question, spearman
from evaluation.responders.prompting import answer_messages
from evaluation.runs.spec import RunSpec
from evaluation.scoring.question_scores import QuestionScore


def score(q: str, context: str | None, present: set[str], answer: str, sample: int = 0):
    return QuestionScore(
        question=q,
        answer=answer,
        id=1,
        domain="physics",
        theme=None,
        hop=2,
        precision=0.0,
        recall=0.0,
        pas=0.25,
        partial_precision=0.0,
        partial_recall=0.0,
        partial_pas=0.0,
        empty_a=not present,
        faithfulness=None,
        n_claims=0,
        tokens=None,
        tokens_source=None,
        relevancy=None,
        relevancy_method=None,
        present={p: p in present for p in ("a", "b", "c")},
        sample=sample,
        context=context,
    )


def test_jaccard():
    assert jaccard(set(), set()) == 1.0
    assert jaccard({"a"}, set()) == 0.0
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)


def test_per_question_means_over_perturbations_first_samples_only():
    scores = [
        score("q", None, {"a", "b"}, "A0"),
        score("q", "c1", {"b"}, "A1"),  # 1/2
        score("q", "c2", {"a", "b"}, "A2"),  # 1
        score("q", "c1", set(), "A9", sample=1),  # a second sample: not compared
        score("r", None, {"a"}, "B0"),  # no perturbed answer yet: left out
    ]
    vec = {"A0": [1.0, 0.0], "A1": [0.0, 1.0], "A2": [1.0, 0.0]}
    texts = {"A0": "A0", "A1": "A1", "A2": "A2", "A9": "A9"}
    [row] = per_question(scores, texts, lambda ts: np.array([vec[t] for t in ts]))
    assert row.question == "q" and row.perturbations == 2
    assert row.jaccard == pytest.approx(0.75) and row.similarity == pytest.approx(0.5)
    assert row.informative is (0.75 >= INFORMATIVE_MIN)


def test_empty_answers_compare_as_equal_and_one_empty_as_different():
    scores = [score("q", None, set(), "A0"), score("q", "c1", set(), "A1")]
    [row] = per_question(scores, {"A0": "", "A1": " "}, lambda ts: np.zeros((len(ts), 2)))
    assert row.similarity == 1.0 and row.jaccard == 1.0
    [row] = per_question(scores, {"A0": "", "A1": "x"}, lambda ts: np.ones((len(ts), 1)))
    assert row.similarity == 0.0


def test_spearman():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(
        np.corrcoef([0.5, 0.5, 2], [0, 1, 2])[0, 1]
    )
    assert spearman([1, 2], [1, 2]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


def test_preamble_goes_before_the_user_message_and_only_there():
    plain = answer_messages("Why?", [], Strategy.plain)
    with_pre = answer_messages("Why?", [], Strategy.plain, "A neutral sentence.")
    assert with_pre[0] == plain[0]
    assert with_pre[1]["content"] == "A neutral sentence.\n\n" + plain[1]["content"]


def test_contexts_zero_keeps_the_run_identity():
    base = RunSpec().identity({})
    assert "contexts" not in base and RunSpec(contexts=2).identity({})["contexts"] == 2
