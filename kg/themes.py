"""Perspective themes in a few categories: the raw theme strings of a benchmark ("Causal",
"CAUSAL", "Political_Cause", "Political Cause", "IS_A_SPECIAL_CASE_OF", ...) normalised (case,
separators, synonyms) and mapped to the domain's relation-palette categories, the way the
paper's Figure 5 aggregates fine-grained relationships into high-level categories.

How a theme finds its category, first rule that applies:

1. the theme is a relation label of the domain (any case or separator): that label's category;
2. the theme's words (synonyms folded to one root, e.g. temporal -> precede, exemplar ->
   example) meet the words of one category (its name and its labels) more than any other;
3. the category most of the question's target paths' labels belong to (the theme names the
   target perspective, so its paths say which category it is);
4. `other`.

A domain without a palette (no edge carries a category) is mapped onto `GENERIC`, a small
fixed set named after the paper's Figure 5 categories. The raw theme is always kept beside.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from kg.store import Store

OTHER = "other"

# Words that carry no perspective (label glue, category suffixes).
_STOP = {
    "a", "an", "the", "of", "to", "in", "for", "with", "by", "is", "are", "as", "and", "or",
    "relation", "relations", "relationship", "same", "general", "connection", "based",
}  # fmt: skip

# Synonyms folded onto one root before matching (stems are compared by shared prefix).
SYNONYMS: dict[str, str] = {
    "causal": "cause", "causality": "cause", "causation": "cause", "why": "cause",
    "explanatory": "explain", "explains": "explain", "mechanism": "explain",
    "temporal": "precede", "sequential": "precede", "sequence": "precede",
    "chronological": "precede", "precedence": "precede", "precedes": "precede",
    "procedural": "step", "procedure": "step", "process": "step", "flow": "step",
    "exemplar": "example", "exemplification": "example", "examples": "example",
    "instance": "example", "contextual": "context", "background": "context",
    "contrastive": "contrast", "contrasting": "contrast", "contrasts": "contrast",
    "comparative": "contrast", "comparison": "contrast", "versus": "contrast",
    "alternative": "alternative", "counterpart": "alternative", "complementary": "alternative",
    "categorical": "type", "classification": "type", "taxonomic": "type", "kind": "type",
    "special": "type", "case": "type", "hierarchical": "type", "subtype": "type",
    "compositional": "part", "component": "part", "components": "part", "shared": "part",
    "definitional": "define", "defined": "define", "derived": "define", "derivation": "define",
    "enablement": "enable", "enabling": "enable", "enables": "enable",
    "functional": "function", "promotional": "activate", "promotion": "activate",
    "promotes": "activate", "inhibitory": "inhibit", "dysregulated": "inhibit",
    "requirement": "input", "requires": "input", "dependency": "input", "input": "input",
    "productive": "output", "produces": "output", "regenerative": "cycle", "cyclical": "cycle",
    "political": "political", "economic": "economic", "ideological": "ideology",
}  # fmt: skip

# Categories for a domain without a palette, after the paper's Figure 5.
GENERIC: dict[str, list[str]] = {
    "causal_and_explanatory": ["cause", "explain", "enable", "function", "effect", "result"],
    "sequential_and_procedural": ["precede", "step", "cycle", "follow", "order"],
    "taxonomic_and_hierarchical": ["type", "part", "define", "example", "hierarchy"],
    "contrast_and_alternatives": ["contrast", "alternative", "differ"],
    "input_and_dependency": ["input", "output", "provide", "depend"],
    "regulation": ["activate", "inhibit", "regulate"],
    "context": ["context", "ideology"],
}


class ThemeCategory(BaseModel):
    raw: str | None  # the theme as stored
    normalised: str  # lower case, words separated by one space
    category: str  # a palette category of the domain, a GENERIC one, or "other"
    how: str  # label, words, target paths, none

    @property
    def label(self) -> str:
        return category_label(self.category)


def category_label(category: str) -> str:
    """`causal_and_consequential_relations` -> `Causal and consequential`."""
    words = [w for w in category.split("_") if w and w.lower() not in ("relations", "relation")]
    text = " ".join(words) or category
    return text[:1].upper() + text[1:]


def normalise(raw: str | None) -> str:
    """Case and separators out: "Political_Cause", "POLITICAL CAUSE", "PoliticalCause" ->
    "political cause"; "Causal/Functional" -> "causal functional"."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", raw or "")
    return " ".join(re.split(r"[\s_\-/,&+.]+", text.lower())).strip()


def _stem(word: str) -> str:
    word = SYNONYMS.get(word, word)
    for suffix in ("ational", "ation", "ality", "ative", "ively", "ical", "ing", "ive", "ion"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word.rstrip("s") if len(word) > 4 else word


def roots(text: str) -> set[str]:
    return {_stem(w) for w in normalise(text).split() if w not in _STOP}


def _meets(a: str, b: str) -> bool:
    n = min(len(a), len(b))
    return a == b or (n >= 4 and a[:n] == b[:n]) or (n >= 5 and a[:5] == b[:5])


class ThemeMap:
    """One domain's categories: category -> its relation labels (from the palette, or the
    categories the domain's edges carry); `GENERIC` when there are none."""

    def __init__(self, categories: Mapping[str, Iterable[str]] | None) -> None:
        cats = {c: list(labels) for c, labels in (categories or {}).items() if c}
        self.generic = not cats
        self.categories = cats or GENERIC
        self.label_category = {
            normalise(label): cat for cat, labels in self.categories.items() for label in labels
        }
        self.words = {
            cat: roots(cat) | {r for label in labels for r in roots(label)}
            for cat, labels in self.categories.items()
        }

    def _by_words(self, text: str) -> list[str]:
        """The categories whose words the text's words meet most (none when none meets)."""
        mine = roots(text)
        scores = {
            cat: sum(1 for r in mine if any(_meets(r, w) for w in words))
            for cat, words in self.words.items()
        }
        best = max(scores.values(), default=0)
        return [c for c, s in scores.items() if s == best and best > 0]

    def _by_labels(self, labels: Iterable[str]) -> str | None:
        found: list[str] = []
        for label in labels:
            n = normalise(label)
            cat = self.label_category.get(n) or next(iter(self._by_words(n)), None)
            if cat:
                found.append(cat)
        return Counter(found).most_common(1)[0][0] if found else None

    def categorize(self, raw: str | None, target_labels: Iterable[str] = ()) -> ThemeCategory:
        norm = normalise(raw)
        labels = list(target_labels)
        if norm in self.label_category:
            return ThemeCategory(
                raw=raw, normalised=norm, category=self.label_category[norm], how="label"
            )
        tops = self._by_words(norm)
        by_paths = self._by_labels(labels)
        if len(tops) == 1 or (tops and by_paths not in tops):
            return ThemeCategory(raw=raw, normalised=norm, category=tops[0], how="words")
        if by_paths is not None:
            return ThemeCategory(raw=raw, normalised=norm, category=by_paths, how="target paths")
        return ThemeCategory(raw=raw, normalised=norm, category=OTHER, how="none")


def question_themes(store: Store, uids: Iterable[str]) -> dict[str, ThemeCategory]:
    """question uid -> its theme's category, with each domain's categories read once."""
    rows = store.query("core/theme_inputs", uids=sorted(set(uids)))
    maps: dict[str, ThemeMap] = {}
    # questions of a domain share their themes and labels: each combination is mapped once
    seen: dict[tuple[str, str | None, tuple[str, ...]], ThemeCategory] = {}
    out: dict[str, ThemeCategory] = {}
    for r in rows:
        if r["domain"] not in maps:
            maps[r["domain"]] = ThemeMap({c["category"]: c["labels"] for c in r["categories"]})
        labels = tuple(label for path in r["target_labels"] for label in (path or []))
        key = (r["domain"], r["theme"], labels)
        if key not in seen:
            seen[key] = maps[r["domain"]].categorize(r["theme"], labels)
        out[r["uid"]] = seen[key].model_copy()
    return out
