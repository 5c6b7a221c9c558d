"""Offline text heuristics: sentence segmentation, keyphrase (entity) candidates, pronoun checks.

A baseline for running without a model: no parser, just regular expressions, scikit-learn's
English stop words and corpus statistics.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

_ABBREV = (
    "e.g.",
    "i.e.",
    "etc.",
    "vs.",
    "Fig.",
    "fig.",
    "Dr.",
    "Mr.",
    "Mrs.",
    "St.",
    "U.S.",
    "approx.",
    "No.",
    "ca.",
    "c.",
)
_SPLIT = re.compile(r"(?<=[.!?])[\"”’)]?\s+(?=[A-Z0-9\"“(])")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")
_BREAK = re.compile(r"[,;:()\[\]\"“”—–]|\s-\s")
PRONOUN_START = re.compile(r"^(It|They|He|She|This|These|That|Those|Its|Their|His|Her)\b\s+(\w+)")
# Words after a leading demonstrative that show it is a bare pronoun ("This is", "These are").
_PRONOUN_VERBS = {
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "can",
    "could",
    "will",
    "would",
    "may",
    "might",
    "must",
    "should",
    "does",
    "do",
    "did",
    "means",
}
_GENERIC = {
    "called",
    "example",
    "examples",
    "different",
    "also",
    "used",
    "use",
    "uses",
    "using",
    "one",
    "two",
    "three",
    "many",
    "much",
    "way",
    "ways",
    "thus",
    "however",
    "often",
    "known",
    "given",
    "certain",
    "several",
    "various",
    "new",
    "like",
    "just",
    "figure",
    "shown",
    "show",
    "shows",
    "first",
    "second",
    "third",
    "make",
    "makes",
    "made",
    "let",
    "consider",
    "important",
    "similar",
    "same",
    "type",
    "types",
    "number",
    "large",
    "small",
    "great",
    "greater",
    "less",
    "more",
    "most",
    "very",
}


@cache
def stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) | frozenset(_GENERIC)


def sentences(text: str) -> list[str]:
    """Split text into sentences, protecting common abbreviations."""
    guarded = text
    for i, abbr in enumerate(_ABBREV):
        guarded = guarded.replace(abbr, f"\x00{i}\x00")
    out = []
    for part in _SPLIT.split(re.sub(r"\s+", " ", guarded).strip()):
        for i, abbr in enumerate(_ABBREV):
            part = part.replace(f"\x00{i}\x00", abbr)
        if part.strip():
            out.append(part.strip())
    return out


def is_complete(sentence: str, min_words: int = 6, max_words: int = 60) -> bool:
    """A whole sentence of reasonable length (chunk edges cut sentences in half)."""
    n = len(sentence.split())
    return (
        min_words <= n <= max_words
        and sentence[0].isupper()
        and sentence.rstrip('"”’)').endswith((".", "!"))
    )


def bare_pronoun(sentence: str) -> str | None:
    """The leading pronoun when the sentence opens with one that needs resolving."""
    m = PRONOUN_START.match(sentence)
    if not m:
        return None
    word, nxt = m.group(1), m.group(2).lower()
    if word in {"This", "These", "That", "Those"} and nxt not in _PRONOUN_VERBS:
        return None  # "This force ..." names its referent
    return word


def candidate_phrases(sentence: str, max_words: int = 3) -> list[str]:
    """Runs of content words, and their sub-n-grams up to `max_words`, lower-cased."""
    stops = stop_words()
    phrases: list[str] = []
    for segment in _BREAK.split(sentence):
        run: list[str] = []
        for tok in _TOKEN.findall(segment) + [""]:
            low = tok.lower().strip("'’-")
            if low and low not in stops and len(low) > 2 and not low.endswith("ly"):
                run.append(low)
                continue
            for n in range(1, max_words + 1):
                for i in range(len(run) - n + 1):
                    phrases.append(" ".join(run[i : i + n]))
            run = []
    return phrases


def phrase_frequencies(all_sentences: list[str]) -> Counter[str]:
    """In how many sentences each candidate phrase occurs (a corpus statistic)."""
    df: Counter[str] = Counter()
    for s in all_sentences:
        df.update(set(candidate_phrases(s)))
    return df


def key_entities(sentence: str, df: Counter[str], n_sentences: int, limit: int) -> list[str]:
    """Up to `limit` phrases recurring in the corpus, longest (most formal) first, no overlaps."""
    cands = set(candidate_phrases(sentence))
    ceiling = max(3, int(0.2 * n_sentences))
    ranked = sorted(
        (p for p in cands if 2 <= df[p] <= ceiling),
        key=lambda p: (-len(p.split()), -df[p], p),
    )
    chosen: list[str] = []
    for p in ranked:
        if any(p in c for c in chosen):
            continue
        chosen.append(p)
        if len(chosen) >= limit:
            break
    if not chosen:  # a one-off sentence: fall back to its longest candidates
        chosen = sorted(cands, key=lambda p: (-len(p.split()), p))[:1]
    return chosen
