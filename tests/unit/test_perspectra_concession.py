"""The concession-rebuttal rule: a concessive opening followed by a turn."""

from __future__ import annotations

import pytest

from evaluation.perspectra.concession import is_concession_rebuttal

POSITIVE = [
    "While cannabis has health risks, legalizing it would dismantle the black market.",
    "Although taxes would be high, the revenue alone makes legalization worth it.",
    "Even though I love board games, online games are simply more fun these days.",
    "Sure, there are downsides. But ending the black market is worth a lot more.",
    "Granted, some hunters break the rules; however, the fees fund conservation work.",
    "Look, I get that people worry about crowding. Still, free buses help the poorest most.",
    "Honestly, admittedly the data is thin. That said, the trend points one way.",
    "Of course homework takes time, yet the habits it builds last for years.",
    "I understand the safety argument. At the end of the day, freedom matters more.",
    "It’s true that remote work is lonely, but the saved commute changes lives.",
]
NEGATIVE = [
    "Legalizing cannabis would dismantle the black market and cut incarceration.",
    "Absolutely, free buses are the best idea this city has had in years.",
    "Sure thing, free transport is great and everybody should have it.",
    "Homework is useless. Kids should play. Nothing more to say.",
    "I think the data shows the opposite, but let us look closer at it.",  # no concessive opening
    "The thing is, while we're here, this is off topic",  # marker not at the opening
    "Of course it works. Everyone knows it does and the numbers agree.",
    "",
]


@pytest.mark.parametrize("text", POSITIVE)
def test_concession_rebuttal_detected(text: str) -> None:
    assert is_concession_rebuttal(text)


@pytest.mark.parametrize("text", NEGATIVE)
def test_plain_texts_not_flagged(text: str) -> None:
    assert not is_concession_rebuttal(text)


def test_turn_must_come_soon_after_a_free_standing_marker() -> None:
    late = "Sure, it is popular. It is cheap. It is everywhere. But it still fails."
    assert not is_concession_rebuttal(late)
    assert is_concession_rebuttal("Sure, it is popular. But it still fails.")
