"""Strict reply parsers: a reply is read only in the shapes the prompts ask for.

Accepted: a JSON object with the task's key (optionally in a ```json fence), or the bare answer
token alone (`4`, `B`, `pro`). A leading <think>...</think> block of a reasoning model is set
aside first. Anything else is invalid - never guessed from free text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Parsed:
    value: str | None  # canonical answer as text ('4', 'B', 'pro'); None when invalid
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.value is not None


def _body(reply: str) -> str:
    text = _THINK.sub("", reply or "", count=1).strip()
    m = _FENCE.match(text)
    return m.group(1).strip() if m else text


def _json_field(text: str, key: str) -> tuple[bool, object]:
    """(was a JSON object, value of key or None)."""
    if not text.startswith("{"):
        return False, None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return True, None
    return True, obj.get(key) if isinstance(obj, dict) else None


def parse_count(reply: str) -> Parsed:
    text = _body(reply)
    was_json, value = _json_field(text, "count")
    if was_json:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return Parsed(str(value))
        return Parsed(None, 'expected {"count": <non-negative integer>}')
    if re.fullmatch(r"\d{1,4}\.?", text):
        return Parsed(str(int(text.rstrip("."))))
    return Parsed(None, "not a count")


def parse_letter(reply: str, letters: str) -> Parsed:
    text = _body(reply)
    was_json, value = _json_field(text, "answer")
    if was_json:
        text = value.strip() if isinstance(value, str) else ""
    m = re.fullmatch(r"\(?([A-Za-z])[).]?", text)
    if m and m.group(1).upper() in letters:
        return Parsed(m.group(1).upper())
    return Parsed(None, f"expected one option letter of {letters}")


def parse_stance(reply: str) -> Parsed:
    text = _body(reply)
    was_json, value = _json_field(text, "stance")
    if was_json:
        text = value.strip() if isinstance(value, str) else ""
    word = text.rstrip(".").strip().lower()
    if word in {"pro", "con"}:
        return Parsed(word)
    return Parsed(None, "expected 'pro' or 'con'")
