"""The concession-rebuttal rule: a text that opens by conceding and then turns.

A concessive opening is a marker at the start of the first sentence (after at most two short
lead-in words such as "look," or "honestly,"). Subordinating markers (while, although, though,
even though, even if, whilst, despite) already carry the turn in their main clause, so a comma
closing the concessive clause in that sentence counts as the turn; free-standing markers (sure,
granted, admittedly, of course, true, I get/understand/know that, it's true that, yes) need an
explicit contrast word in that sentence or the next (but, however, yet, still, nevertheless,
nonetheless, that said, on the other hand, at the end of the day, ultimately, the thing is).
"""

from __future__ import annotations

import re

SUBORDINATING = ("even though", "even if", "although", "though", "whilst", "while", "despite")
FREE_STANDING = (
    "sure",
    "granted",
    "admittedly",
    "of course",
    "true",
    "yes",
    "yeah",
    "no doubt",
    "it's true that",
    "it is true that",
    "i get that",
    "i get it",
    "i understand that",
    "i understand",
    "i know that",
    "i know",
    "i agree that",
    "i see the point",
    "i see where",
    "fair enough",
    "okay, so",
    "ok, so",
    "certainly",
    "obviously",
)
TURNS = (
    "but",
    "however",
    "yet",
    "still",
    "nevertheless",
    "nonetheless",
    "that said",
    "that being said",
    "on the other hand",
    "at the end of the day",
    "ultimately",
    "the thing is",
    "even so",
    "in the end",
)
_LEAD_IN = re.compile(
    r"^(?:(?:look|honestly|well|listen|so|and|i mean|ok|okay|hey)[,!]?\s+){0,2}", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _starts_with(text: str, markers: tuple[str, ...]) -> str | None:
    low = text.lower()
    for m in sorted(markers, key=len, reverse=True):
        if low.startswith(m) and (len(low) == len(m) or not low[len(m)].isalnum()):
            return m
    return None


def _has_turn(text: str) -> bool:
    low = text.lower().replace("’", "'")
    return any(re.search(rf"(?<![\w']){re.escape(t)}(?![\w'])", low) for t in TURNS)


def is_concession_rebuttal(text: str) -> bool:
    body = text.strip().replace("’", "'")
    sentences = _SENTENCE_END.split(body, maxsplit=2)
    first = _LEAD_IN.sub("", sentences[0]).strip()
    rest = sentences[1] if len(sentences) > 1 else ""  # the turn must come soon after
    marker = _starts_with(first, SUBORDINATING)
    if marker:
        after = first[len(marker) :]
        # "While X, Y": the main clause after the comma is the turn.
        return "," in after.strip(" ,") or _has_turn(after) or _has_turn(rest)
    marker = _starts_with(first, FREE_STANDING)
    if marker:
        return _has_turn(first[len(marker) :]) or _has_turn(rest)
    return False
