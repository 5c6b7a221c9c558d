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

from pydantic import BaseModel, Field

from evaluation.judges.text import STOPWORDS, content_stems, stem, words

NAME_WEIGHT = 3.0
TOPIC_WEIGHT = 2.0
ENTITY_WEIGHT = 1.5
SUMMARY_WEIGHT = 0.5
MAX_NAME_WORDS = 4
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

    def score(self, window_stems: set[str]) -> float:
        return sum(w for s, w in self.weights.items() if s in window_stems)


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
    for t in c.topic_words:
        add(content_stems(t), TOPIC_WEIGHT)
    if c.name:
        add(content_stems(c.name), NAME_WEIGHT)
    if not _TOPIC_KEY.match(c.key):
        add(content_stems(c.key.replace("_", " ")), NAME_WEIGHT)
    return w


def build_profiles(concepts: list[ConceptInfo], question: str = "") -> dict[str, ConceptProfile]:
    """Profiles for a question's concepts, names read from the question where it lists them."""
    base = {c.key: _base_weights(c) for c in concepts}
    names: dict[str, list[str]] = {c.key: [c.name] if c.name else [] for c in concepts}
    # a question phrase names the concept whose (non-name) profile it overlaps most, clearly
    for phrase in _phrases(question):
        ps = [s for s in content_stems(phrase) if s not in _QUESTION_FILLER and len(s) > 2]
        if not ps or len(ps) > MAX_NAME_WORDS:
            continue  # a clause of the question, not a name
        scored = sorted(((sum(base[k].get(s, 0.0) for s in ps), k) for k in base), reverse=True)
        if not scored or scored[0][0] <= 0:
            continue
        if len(scored) > 1 and scored[1][0] >= scored[0][0]:
            continue  # ambiguous: names no concept in particular
        key = scored[0][1]
        names[key].append(phrase)
        for s in ps:
            base[key][s] = max(base[key].get(s, 0.0), NAME_WEIGHT)
    # shared stems identify no concept in particular
    count: dict[str, int] = {}
    for w in base.values():
        for s in w:
            count[s] = count.get(s, 0) + 1
    profiles = {}
    for key, w in base.items():
        profiles[key] = ConceptProfile(
            key=key, names=names[key], weights={s: v / count[s] for s, v in w.items()}
        )
    return profiles


def window_stems(text: str) -> set[str]:
    return {stem(x) for x in words(text) if x not in STOPWORDS}
