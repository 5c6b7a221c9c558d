"""Strict reply parsers: accepted shapes only; everything else is invalid, never guessed."""

from __future__ import annotations

import pytest

from evaluation.perspectra.reply_parsers import parse_count, parse_letter, parse_stance


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"count": 4}', "4"),
        ("4", "4"),
        (" 12.\n", "12"),
        ('```json\n{"count": 3}\n```', "3"),
        ('<think>maybe 5? no, 3</think>\n{"count": 3}', "3"),
        ('{"count": 0}', "0"),
    ],
)
def test_count_accepted(reply: str, value: str) -> None:
    assert parse_count(reply).value == value


@pytest.mark.parametrize(
    "reply",
    [
        "There are 4 distinct opinions.",
        "four",
        '{"count": "4"}',
        '{"count": 4.0}',
        '{"count": -1}',
        '{"count": true}',
        '{"n": 4}',
        "{count: 4}",
        "",
        "4 or 5",
        "[4]",
    ],
)
def test_count_rejected(reply: str) -> None:
    p = parse_count(reply)
    assert not p.valid and p.value is None and p.error


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"answer": "B"}', "B"),
        ("c", "C"),
        ("(A)", "A"),
        ("D.", "D"),
        ('{"answer": " a "}', "A"),
    ],
)
def test_letter_accepted(reply: str, value: str) -> None:
    assert parse_letter(reply, "ABCD").value == value


@pytest.mark.parametrize(
    "reply",
    [
        "E",
        '{"answer": "E"}',
        "The answer is B",
        "B) because",
        '{"answer": 2}',
        "AB",
        "",
    ],
)
def test_letter_rejected(reply: str) -> None:
    assert not parse_letter(reply, "ABCD").valid


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"stance": "pro"}', "pro"),
        ("CON", "con"),
        ("Pro.", "pro"),
        ('{"stance": "Con"}', "con"),
    ],
)
def test_stance_accepted(reply: str, value: str) -> None:
    assert parse_stance(reply).value == value


@pytest.mark.parametrize(
    "reply",
    [
        "for",
        "against",
        "The text is pro.",
        '{"stance": "neutral"}',
        "pro/con",
        '{"answer": "pro"}',
    ],
)
def test_stance_rejected(reply: str) -> None:
    assert not parse_stance(reply).valid
