"""Word-level text handling for the edge-evidence judge: tokens, Snowball stems, windows.

Stems (Snowball English, the `snowballstemmer` package: pure Python, no data files) let
"causes", "caused" and "causing" meet one cue, and "metabolism"/"metabolized" one concept word.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import snowballstemmer

from evaluation.responders.tokens import split_sentences

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]|\d+")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]|\d+|[,;:.!?]")
CLAUSE_BREAKS = frozenset(",;:.!?")
# A Snowball stemmer keeps state while it works: one per thread (judges run in worker threads).
_LOCAL = threading.local()

# Function words: never a concept's word, never a cue on their own.
STOPWORDS = frozenset(
    """
a an the and or but nor of to in on at by for with from as into onto upon over under about
is are was were be been being am do does did done has have had having it its it's this that
these those there their them they he she his her we our you your i me my one ones which who
whom whose what when where why how than then so such very more most much many some any each
all both either neither not no yes can could may might must shall should will would also too
just only even still yet again ever own same other another between through during before after
while whereas because since until unless if though although however thus therefore hence
s t can't won't don't doesn't isn't aren't wasn't weren't itself themselves via per
""".split()
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    w = word.lower().strip("'-")
    if not w:
        return w
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWord(w)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def tokens(text: str) -> list[str]:
    """Stems with punctuation kept as tokens (clause boundaries for reading direction)."""
    return [t if t in CLAUSE_BREAKS else stem(t) for t in _TOKEN.findall(text or "")]


def stems(text: str) -> list[str]:
    """Stems of every word, in order (function words kept so cue phrases stay contiguous)."""
    return [stem(w) for w in words(text)]


def content_stems(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1]


def windows(text: str, width: int = 2) -> list[str]:
    """Single sentences, then runs of `width` consecutive sentences (an edge often spans two)."""
    sentences = split_sentences(text)
    out = list(sentences)
    for size in range(2, width + 1):
        out += [" ".join(sentences[i : i + size]) for i in range(len(sentences) - size + 1)]
    return out
