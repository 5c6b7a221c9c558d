"""Recognising a concept in an answer window from what the graph knows about it.

A concept's profile is a weighted bag of stems: its name (the concept key when it is a name,
and the phrase of the question that names it), its topic words, the entities of its summary
(capitalised words) and the summary's other content words. A stem shared by several concepts
of the same question says little about which one a sentence is about, so its weight is divided
by the number of concepts that have it. The stored reason texts are never used: a judge that
reads them only rewards answers that copy them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
from pydantic import BaseModel, Field
from scipy.optimize import linear_sum_assignment

from evaluation.judges.text import CLAUSE_BREAKS, STOPWORDS, content_stems, stem, tokens

NAME_WEIGHT = 3.0
TOPIC_WEIGHT = 2.0
ENTITY_WEIGHT = 1.5
SUMMARY_WEIGHT = 0.5
MAX_NAME_WORDS = 4
_NAME_SKIP = CLAUSE_BREAKS | {"the", "a", "an"}
ORDER_BONUS = 2.5
NAME_BONUS = 2.0
KEY_BONUS = 4.0  # a reference by key names the concept outright (above any threshold's grid)
_TOPIC_KEY = re.compile(r"^topic_\d+$")
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'\-]+")
# words of a question that introduce its concepts rather than name them
_QUESTION_FILLER = set(
    content_stems(
        "explain describe relationship relationships connection connections between considering "
        "focusing focus how does do relate relation role roles concept concepts underlying "
        "principles articulate process processes interplay account accounts chain actions "
        "political sequence conceptual way ways link links fit fits them"
    )
)


class ConceptInfo(BaseModel):
    key: str
    summary: str | None = None
    topic_words: list[str] = Field(default_factory=list)
    name: str | None = None


class ConceptProfile(BaseModel):
    key: str
    weights: dict[str, float]
    names: list[str] = Field(default_factory=list)  # name phrases found for the concept
    name_stems: list[tuple[str, ...]] = Field(default_factory=list)
    # "Topic 13" for the key topic_13: the published benchmark's reasons and evidence pools
    # refer to concepts by their key, and an answer quoting them does the same
    key_stems: tuple[str, ...] | None = None

    def score(self, window_stems: set[str], seq: list[str] | None = None) -> float:
        """Evidence that a window speaks about the concept: its weighted words, plus a bonus
        when it uses one of the concept's names whole (a name shared with other concepts'
        names still says which one is meant)."""
        total = sum(w for s, w in self.weights.items() if s in window_stems)
        if seq is not None and any(_contains(seq, n) for n in self.name_stems):
            total += NAME_BONUS
        if seq is not None and self.key_stems and _contains(seq, self.key_stems):
            total += KEY_BONUS
        return total

    def key_positions(self, seq: list[str]) -> list[int]:
        """Where the window refers to the concept by its key ("Topic 13"): every word's place."""
        k = self.key_stems
        return [i + j for i in _starts(seq, k) for j in range(len(k))] if k else []


def _starts(seq: list[str], part: tuple[str, ...]) -> Iterator[int]:
    """Where `part` occurs in `seq` (its first word's positions)."""
    n = len(part)
    first = part[0]
    return (i for i in range(len(seq) - n + 1) if seq[i] == first and tuple(seq[i : i + n]) == part)


def _contains(seq: list[str], part: tuple[str, ...]) -> bool:
    return next(_starts(seq, part), None) is not None


def _phrases(text: str) -> list[str]:
    """Comma/"and"-separated chunks of a question: candidate concept names."""
    chunks = re.split(
        r",|;|:|\?|\.|\band\b|\bbetween\b|\bof the\b|\bto\b|\bfrom\b|\bwith\b"
        r"|\bfocusing\b|\bby\b|\bwhere\b|\bhow\b|\bwhich\b|\bthat\b",
        text,
    )
    return [c.strip() for c in chunks if c and len(content_stems(c)) > 0]


def _base_weights(c: ConceptInfo) -> dict[str, float]:
    w: dict[str, float] = {}

    def add(stems: list[str], weight: float) -> None:
        for s in stems:
            if s not in STOPWORDS and len(s) > 2:
                w[s] = max(w.get(s, 0.0), weight)

    summary = c.summary or ""
    add(content_stems(summary), SUMMARY_WEIGHT)
    add(
        [stem(e) for e in _CAPITALISED.findall(summary) if e.lower() not in STOPWORDS],
        ENTITY_WEIGHT,
    )
    for i, t in enumerate(c.topic_words):  # the first topic word is the most typical one
        add(content_stems(t), NAME_WEIGHT if i == 0 else TOPIC_WEIGHT)
    if c.name:
        add(content_stems(c.name), NAME_WEIGHT)
    if not _TOPIC_KEY.match(c.key):
        add(content_stems(c.key.replace("_", " ")), NAME_WEIGHT)
    return w


def build_profiles(concepts: list[ConceptInfo], question: str = "") -> dict[str, ConceptProfile]:
    """Profiles for a question's concepts (in path order), names read from the question.

    A question usually lists its concepts ("between A, B, and C"): its short phrases are matched
    one to one with the concepts by an optimal assignment on profile overlap, with a small
    preference for the listing order (questions list them along the path).
    """
    base = {c.key: _base_weights(c) for c in concepts}
    names: dict[str, list[str]] = {c.key: [c.name] if c.name else [] for c in concepts}
    phrases = []
    for phrase in _phrases(question):
        ps = [s for s in content_stems(phrase) if s not in _QUESTION_FILLER and len(s) > 2]
        if ps and len(ps) <= MAX_NAME_WORDS:
            phrases.append((phrase, ps))
    keys = list(base)
    if phrases and keys:
        overlap = np.array(
            [[sum(base[k].get(s, 0.0) for s in ps) for k in keys] for _, ps in phrases]
        )
        order = np.array(
            [
                [ORDER_BONUS if i == j else 0.0 for j in range(len(keys))]
                for i in range(len(phrases))
            ]
        )
        rows, cols = linear_sum_assignment(-(overlap + order))
        for i, j in zip(rows, cols, strict=True):
            if overlap[i, j] <= 0:
                continue  # the phrase shares no word with that concept: no sign it names it
            phrase, ps = phrases[i]
            names[keys[j]].append(phrase)
            for s in ps:
                base[keys[j]][s] = max(base[keys[j]].get(s, 0.0), NAME_WEIGHT)
    # a stem shared by several concepts belongs to the one(s) it is most typical of: they keep
    # its weight (split when several tie), the others keep a share in proportion
    top: dict[str, float] = {}
    for w in base.values():
        for s, v in w.items():
            top[s] = max(top.get(s, 0.0), v)
    ties: dict[str, int] = {}
    for w in base.values():
        for s, v in w.items():
            if v == top[s]:
                ties[s] = ties.get(s, 0) + 1
    profiles = {}
    for key, w in base.items():
        profiles[key] = ConceptProfile(
            key=key,
            names=names[key],
            name_stems=[
                t
                for t in (tuple(x for x in tokens(n) if x not in _NAME_SKIP) for n in names[key])
                if t
            ],
            weights={s: v * v / top[s] / ties[s] for s, v in w.items()},
            key_stems=tuple(tokens(key.replace("_", " "))) if _TOPIC_KEY.match(key) else None,
        )
    return profiles
