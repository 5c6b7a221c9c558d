"""Sentences that state no fact, recognized before they become Facts.

A textbook chunk mixes statements with questions, exhortations addressed to the reader
("Consider a swimmer...", "you will see"), filler ("For many, the concept is
counterintuitive."), figure captions, exercise scaffolding and garbled formulas. None of them
is a fact a benchmark could quote as evidence, and as a group they cluster into junk concepts.
`non_fact_kind` names why a sentence is not a fact (or None); the facts stage drops those and
counts them per kind.
"""

from __future__ import annotations

import re

# Kinds, in the order they are checked (the first that applies is the one counted).
KINDS = ("question", "caption", "exercise", "exhortation", "filler", "formula")

_IMPERATIVES = {
    "consider",
    "imagine",
    "suppose",
    "note",
    "recall",
    "remember",
    "think",
    "let",
    "look",
    "try",
    "calculate",
    "find",
    "compare",
    "explain",
    "describe",
    "discuss",
    "identify",
    "list",
    "draw",
    "solve",
    "determine",
    "show",
    "take",
    "notice",
    "observe",
    "see",
    "refer",
    "check",
    "picture",
    "visualize",
    "predict",
    "estimate",
    "verify",
    "assume",
    "review",
    "read",
    "answer",
    "watch",
    "click",
    "visit",
    "go",
    "keep",
    "be",
    "make",
    "compute",
    "derive",
    "sketch",
    "summarize",
    "choose",
    "pick",
    "write",
    "recognize",
}
_ADDRESS = re.compile(r"\b(you|your|yours|yourself|let's|let us)\b", re.IGNORECASE)
_WE_OPENING = re.compile(
    r"^(we|our|in this (chapter|section|module|unit|lesson)|this "
    r"(chapter|section|module|unit|lesson))\b",
    re.IGNORECASE,
)
_CAPTION = re.compile(
    r"^(\(?(figure|fig\.|table|image|photo|diagram|graph|chart|map)\s*\d|\(credit|credit:|"
    r"\([a-h]\)\s)|\(credit[ :]|\bcredit:\s|\bmodification of work by\b",
    re.IGNORECASE,
)
_EXERCISE = re.compile(
    r"^(check your understanding|exercise|problem|solution|strategy|discussion|answer|"
    r"example\s*\d|conceptual questions?|learning objectives?|section summary|key terms|"
    r"review questions?|critical thinking|practice|\d+[.)]\s)|\bby the end of this "
    r"(section|chapter|module)\b|\bwill be able to\b|\b(find|calculate|what is) the\b.*\?",
    re.IGNORECASE,
)
# Phrases that carry the author's voice, not the subject matter.
_FILLER = re.compile(
    r"\b(counterintuitive|counter-intuitive|fascinating|interesting(ly)?|surprising(ly)?|"
    r"amazing|remarkabl[ey]|for many\b|of course|it is (important|worth|helpful|useful) to|"
    r"as (we|you) (have |will )?(seen|see|learned|discussed|noted)|as mentioned|in summary|"
    r"in short|to summarize|take a moment|keep in mind|it turns out|believe it or not|"
    r"needless to say|the (following|next) (section|chapter|example|figure))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z]{3,}")
_MATH = re.compile(r"[=+×÷^√∑∫≈≤≥→←\u0370-\u03ff\U0001d400-\U0001d7ff]")
_MIN_CONTENT_WORDS = 3


def content_words(sentence: str) -> list[str]:
    from construction.pipeline.text_units import stop_words

    stops = stop_words()
    return [w for w in (t.lower() for t in _WORD.findall(sentence)) if w not in stops]


def non_fact_kind(sentence: str) -> str | None:
    """Why `sentence` states no fact (one of `KINDS`), or None when it may be a fact."""
    s = sentence.strip()
    if not s:
        return "filler"
    if s.rstrip('"”’)').endswith("?"):
        return "question"
    if _CAPTION.search(s):
        return "caption"
    if _EXERCISE.search(s):
        return "exercise"
    first = re.match(r"[A-Za-z']+", s)
    opener = first.group(0).lower() if first else ""
    if (
        s.rstrip('"”’)').endswith("!")
        or opener in _IMPERATIVES
        or _ADDRESS.search(s)
        or _WE_OPENING.match(s)
    ):
        return "exhortation"
    if _FILLER.search(s) or len(content_words(s)) < _MIN_CONTENT_WORDS:
        return "filler"
    if len(_MATH.findall(s)) >= 3:
        return "formula"  # a garbled equation extracted from a PDF, not a sentence
    return None
