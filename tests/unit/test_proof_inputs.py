"""PROOF inputs: formulation names, the decoder grid, the seeded subset, formulated text."""

from __future__ import annotations

import pytest

from evaluation.models import EvalPath, EvalQuestion
from evaluation.profiles.decoders import parse_grid, subset
from evaluation.profiles.formulations import NAMES, formulate, parse_names
from kg.errors import InputError


def test_formulation_names():
    assert parse_names("hint, original") == ["original", "hint"]  # canonical order
    assert parse_names("all") == list(NAMES) and parse_names(None) == []
    with pytest.raises(InputError, match=r"unknown formulation\(s\) 'sarcastic'"):
        parse_names("original,sarcastic")


def test_decoder_grid():
    assert parse_grid("temperature=0.2;temperature=1, top_p=0.9;seed=7") == [
        {"temperature": 0.2},
        {"temperature": 1.0, "top_p": 0.9},
        {"seed": 7},
    ]
    assert parse_grid(None) == []
    for bad, msg in (("beam=3", "point 1 'beam=3'"), ("temperature=hot", "is not a number")):
        with pytest.raises(InputError, match=msg):
            parse_grid(bad)


def _q(uid: str, paths: list[EvalPath]) -> EvalQuestion:
    return EvalQuestion(uid=uid, id=1, domain="d", text="Why does A lead to B?", hop=1, paths=paths)


def _p(uid: str, label: str, target: bool) -> EvalPath:
    return EvalPath(uid=uid, keys=["a", "b"], labels=[label], target=target)


def test_subset_is_seeded_and_sized():
    qs = [_q(f"q{i}", []) for i in range(20)]
    assert len(subset(qs, 10, 0)) == 2 and subset(qs, 10, 0) == subset(list(reversed(qs)), 10, 0)
    assert len(subset(qs[:3], 10, 0)) == 1  # at least one
    with pytest.raises(InputError, match="outside"):
        subset(qs, 0, 0)


def test_hint_names_a_distractor_relation_no_target_uses():
    q = _q("q", [_p("t", "CAUSES", True), _p("x", "CAUSES", False), _p("y", "PART_OF", False)])
    forms = {f.name: f for f in formulate(q, list(NAMES), seed=1)}
    assert "original" not in forms and forms["hint"].hint_path == "y"
    assert (
        forms["hint"].text.startswith("Why does A lead to B?") and "PART_OF" in forms["hint"].text
    )
    assert "part of" in forms["adversarial"].text and forms["neutral-1"].hint_path is None
    # no distractor: no adversarial or hint formulation
    assert [f.name for f in formulate(_q("r", [_p("t", "CAUSES", True)]), list(NAMES), 1)] == [
        "neutral-1",
        "neutral-2",
    ]
