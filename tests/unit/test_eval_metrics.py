"""Metric definitions with hand-computed cases (issue 4: PAS, partial, faithfulness, weighting)."""

from __future__ import annotations

import pytest

from evaluation.scoring.metrics import (
    faithfulness,
    harmonic,
    partial_scores,
    path_scores,
    weighted_by_group,
)
from evaluation.scoring.question_scores import score_row

T = {"t1", "t2"}


def test_all_paths_present():
    s = path_scores(T, {"t1", "t2", "d1", "d2"})
    # |A∩T| = 2, |A| = 4, |T| = 2 -> P = .5, R = 1, PAS = 2*.5*1/1.5
    assert (s.precision, s.recall) == (0.5, 1.0)
    assert s.pas == pytest.approx(2 / 3) and not s.empty_a


def test_none_present_is_flagged_and_zero():
    s = path_scores(T, set())
    assert (s.precision, s.recall, s.pas, s.empty_a) == (0.0, 0.0, 0.0, True)


def test_only_distractors_present():
    s = path_scores(T, {"d1"})
    assert (s.precision, s.recall, s.pas, s.empty_a) == (0.0, 0.0, 0.0, False)


def test_exact_targets():
    s = path_scores(T, T)
    assert (s.precision, s.recall, s.pas) == (1.0, 1.0, 1.0)


def test_one_of_two_targets_and_one_distractor():
    s = path_scores(T, {"t1", "d1"})
    assert (s.precision, s.recall) == (0.5, 0.5) and s.pas == pytest.approx(0.5)


def test_no_targets_is_an_error():
    with pytest.raises(ValueError, match="without target paths"):
        path_scores(set(), {"a"})
    with pytest.raises(ValueError, match="without target paths"):
        partial_scores(set(), {})


def test_harmonic_zero():
    assert harmonic(0, 0) == 0 and harmonic(1, 0) == 0 and harmonic(0.5, 0.5) == 0.5


def test_partial_variant_gives_edge_level_credit():
    # t1 fully present, t2 half its edges, d1 one third
    s = partial_scores(T, {"t1": 1.0, "t2": 0.5, "d1": 1 / 3})
    assert s.recall == pytest.approx(0.75)
    assert s.precision == pytest.approx(1.5 / (1.5 + 1 / 3))
    assert s.pas == pytest.approx(harmonic(1.5 / (1.5 + 1 / 3), 0.75))
    assert partial_scores(T, {"t1": 0.0}).empty_a
    # all-or-nothing is the special case of 0/1 credit
    aon = path_scores(T, {"t1", "d1"})
    soft = partial_scores(T, {"t1": 1.0, "t2": 0.0, "d1": 1.0})
    assert (aon.precision, aon.recall) == (soft.precision, soft.recall)


def test_faithfulness():
    assert faithfulness([True, False, True, True]) == 0.75
    assert faithfulness([]) is None


def test_overall_weighted_by_questions_per_hop():
    # hop 1: 3 questions mean .2; hop 2: 1 question .8 -> (3*.2 + 1*.8) / 4 = .35
    vals = [(1, 0.1), (1, 0.2), (1, 0.3), (2, 0.8), (3, None)]
    assert weighted_by_group(vals) == pytest.approx(0.35)
    assert weighted_by_group([(1, None)]) is None


def _row(verdicts, targets=("t1", "t2"), valid=("t1", "t2", "d1", "d2")):
    return {
        "question": "q",
        "answer": "a",
        "id": 1,
        "domain": "d",
        "theme": "x",
        "hop": 1,
        "tokens": 10,
        "tokens_source": "usage",
        "targets": list(targets),
        "valid": list(valid),
        "v_path": [v[0] for v in verdicts],
        "v_present": [v[1] for v in verdicts],
        "v_partial": [v[2] for v in verdicts],
        "n_claims": 4,
        "n_supported": 3,
        "relevancy": 0.5,
        "rejected": 1,
        "duplicates": 0,
    }


def test_score_row_from_stored_verdicts():
    verdicts = [("t1", True, 1.0), ("t2", False, 0.5), ("d1", True, 1.0), ("d2", False, 0.0)]
    s = score_row(_row(verdicts))
    assert (s.precision, s.recall) == (0.5, 0.5)
    assert s.partial_recall == pytest.approx(0.75)
    assert s.faithfulness == 0.75 and s.rejected == 1 and s.relevancy == 0.5


def test_score_row_ignores_duplicate_and_foreign_verdicts():
    verdicts = [
        ("t1", True, 1.0),
        ("t1", False, 0.0),  # duplicate: first kept
        ("zz", True, 1.0),
    ]  # not a valid path
    s = score_row(_row(verdicts))
    assert s.precision == 1.0 and s.recall == 0.5 and s.foreign == 1
