"""Metrics exactly as the issue defines them, on hand-computed examples."""

from __future__ import annotations

import pytest

from evaluation.perspectra.metrics import nie, t1_scores, t2_scores, t3_scores
from evaluation.perspectra.reply_parsers import Parsed

BAD = Parsed(None, "invalid")


def test_nie_formula() -> None:
    assert nie(4, 4) == 1.0
    assert nie(6, 4) == pytest.approx(1 / (1 + 2 / 4))
    assert nie(1, 4) == pytest.approx(1 / (1 + 3 / 4))
    assert nie(2, 0) == pytest.approx(1 / (1 + 2 / 1))  # max(1, gold)


def test_t1_scores() -> None:
    golds = [4, 4, 3, 2, 5]
    preds = [Parsed("4"), Parsed("6"), Parsed("2"), BAD, Parsed("8")]
    s = t1_scores(golds, preds).summary
    assert s["accuracy"] == pytest.approx(1 / 5)
    assert s["mae"] == pytest.approx((0 + 2 + 1 + 3) / 4)  # valid replies only
    assert s["n_valid"] == 4
    expected_nie = (1 + 1 / 1.5 + 1 / (1 + 1 / 3) + 0 + 1 / (1 + 3 / 5)) / 5
    assert s["nie"] == pytest.approx(expected_nie)
    assert (s["over_split"], s["under_count"], s["invalid"]) == (0.4, 0.2, 0.2)
    assert s["errors_over_split"] == pytest.approx(2 / 4)
    assert s["errors_invalid"] == pytest.approx(1 / 4)


def test_t2_scores_same_vs_opposite_side() -> None:
    stances = [["pro", "pro", "con", "con"]] * 4
    golds = ["A", "A", "A", "A"]
    preds = [Parsed("A"), Parsed("B"), Parsed("C"), BAD]
    s = t2_scores(golds, preds, stances, ["pro"] * 4).summary
    assert s["accuracy"] == 0.25
    assert s["stance_accuracy"] == 0.5  # A and B are on the gold's side
    assert (s["same_side_confusion"], s["opposite_side_confusion"], s["invalid"]) == (
        0.25,
        0.25,
        0.25,
    )
    assert s["errors_same_side"] == pytest.approx(1 / 3)


def test_t3_scores_concession_share_of_errors() -> None:
    conc = "While fares do pay for repairs, free transport still pays off for the city."
    plain = "Free transport gets cars off the road and that is good for everyone."
    texts = [conc, conc, plain, plain]
    golds = ["pro", "pro", "pro", "con"]
    preds = [Parsed("con"), Parsed("pro"), Parsed("con"), BAD]
    s = t3_scores(golds, preds, texts).summary
    assert s["accuracy"] == 0.25
    assert s["invalid"] == 0.25
    assert s["concession_share_items"] == 0.5
    assert s["concession_share_errors"] == pytest.approx(1 / 3)
    assert s["accuracy_concession"] == 0.5 and s["accuracy_other"] == 0.0


def test_empty_inputs_do_not_divide_by_zero() -> None:
    assert t1_scores([], []).summary["accuracy"] == 0.0
    assert t3_scores([], [], []).summary["concession_share_errors"] == 0.0


def test_t3_bundle_counts_as_concession_when_any_part_concedes() -> None:
    bundle = (
        "Free buses help everyone get around.\n\n"
        "Although fares fund repairs, the city still gains from free transport."
    )
    s = t3_scores(["pro"], [Parsed("con")], [bundle]).summary
    assert s["concession_share_items"] == 1.0 and s["concession_share_errors"] == 1.0
