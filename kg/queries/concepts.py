"""Find concepts by key or free text (full-text index `concept_text`), and list them."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from kg.store import Store

# Lucene query syntax characters: user text is searched as plain words, never as a query.
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
# The top hit wins outright when it scores this much higher than the runner-up.
CLEAR_LEAD = 1.5


class ConceptHit(BaseModel):
    uid: str
    domain: str
    key: str
    summary: str | None = None
    name: str | None = None  # a build's concept name (an imported concept has none)
    score: float = 1.0
    out_edges: int = 0
    in_edges: int = 0
    questions: int = 0


def short_name(key: str, name: str | None, summary: str | None, limit: int = 48) -> str:
    """What a person reads for a concept: its name, else the start of its summary cut at a
    word (an imported benchmark names concepts by key and summary only), else its key."""
    if name and name.strip():
        return " ".join(name.split())
    text = " ".join((summary or "").split())
    if not text:
        return key
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:.")
    return cut + "…"


class ConceptMatch(BaseModel):
    """How a user's text resolved: `chosen` is None when it matched nothing or stays ambiguous."""

    text: str
    how: str  # "key" | "fulltext" | "none"
    chosen: ConceptHit | None = None
    candidates: list[ConceptHit] = Field(default_factory=list)

    @property
    def ambiguous(self) -> bool:
        return self.chosen is None and len(self.candidates) > 1


def lucene_escape(text: str) -> str:
    return _LUCENE_SPECIAL.sub(r"\\\1", text)


def search_concepts(
    store: Store, text: str, *, domain: str | None = None, limit: int = 20
) -> list[ConceptHit]:
    """Full-text matches for `text` (plain words, special characters escaped), best first."""
    query = lucene_escape(text.strip())
    if not query:
        return []
    return [
        ConceptHit(**r)
        for r in store.read("bench/concepts_search", text=query, domain=domain, limit=limit)
    ]


def list_concepts(
    store: Store, *, domain: str | None = None, limit: int = 1000
) -> list[ConceptHit]:
    return [ConceptHit(**r) for r in store.read("bench/concepts_list", domain=domain, limit=limit)]


def find_concept(store: Store, text: str, *, domain: str | None = None) -> ConceptMatch:
    """A concept key (exact, unique across the chosen domains) or free text via full text.

    Free text resolves when there is one hit, or the best hit scores CLEAR_LEAD times the next;
    otherwise the match is ambiguous and lists the candidates.
    """
    by_key = [ConceptHit(**r) for r in store.read("bench/concept_by_key", key=text, domain=domain)]
    if len(by_key) == 1:
        return ConceptMatch(text=text, how="key", chosen=by_key[0], candidates=by_key)
    if len(by_key) > 1:
        return ConceptMatch(text=text, how="key", candidates=by_key)
    hits = search_concepts(store, text, domain=domain, limit=10)
    if not hits:
        return ConceptMatch(text=text, how="none")
    clear = len(hits) == 1 or hits[0].score >= CLEAR_LEAD * hits[1].score
    return ConceptMatch(
        text=text, how="fulltext", chosen=hits[0] if clear else None, candidates=hits
    )
