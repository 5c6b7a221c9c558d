"""Offline question templates per relation-category family, and the checks every question
(template or model) must pass: no relation labels or their synonyms, no concept ids, anchored
on concept names. Templates hint at the focus in general conceptual words."""

from __future__ import annotations

import re

FAMILIES: list[tuple[str, tuple[str, ...]]] = [
    ("mechanism", ("caus", "consequen", "regulat", "effect", "control", "mechan")),
    ("comparison", ("compar", "contrast", "taxonom", "altern", "classif", "similar")),
    (
        "sequence",
        (
            "tempor",
            "procedur",
            "sequen",
            "process",
            "pathway",
            "narrative",
            "order",
            "histor",
            "chrono",
        ),
    ),
    ("structure", ("struct", "function", "compos", "part", "anatom", "organi")),
    ("context", ("context", "ideolog", "framework", "background", "cultur")),
    ("flow", ("flow", "transport", "supply", "movement", "transfer", "exchange")),
]

ONE_HOP: dict[str, list[str]] = {
    "mechanism": [
        "Describe the mechanism by which {a} shapes what happens in {b}, focusing on how a "
        "change in one drives a change in the other.",
        "What underlying mechanism links {a} to {b}? Focus on how one drives the other.",
    ],
    "comparison": [
        "Set {a} side by side with {b}: what do they have in common, where do they diverge, "
        "and where does each sit in a broader classification?",
        "Looking at {a} and {b} side by side, describe what they share and where they part ways.",
    ],
    "sequence": [
        "Describe how {a} and {b} are ordered: which has to come first, and how does the first "
        "set the stage for the second?",
        "In what order do {a} and {b} unfold or need to be understood, and why does that order "
        "matter?",
    ],
    "structure": [
        "Describe how {a} and {b} are organized within a larger whole, focusing on the role "
        "each one plays.",
        "Focusing on organization and roles, describe how {a} is built into {b}.",
    ],
    "context": [
        "Describe the background that {a} provides for {b}, focusing on the ideas and "
        "circumstances that frame it.",
        "Focusing on setting and ideas, how does {a} frame {b}?",
    ],
    "flow": [
        "Follow what travels from {a} to {b}: describe the route it takes and what it carries "
        "along the way.",
        "Describe how material moves between {a} and {b}, focusing on its route.",
    ],
}

MULTI_HOP: dict[str, list[str]] = {
    # "link" rather than "step": several palettes have step/process labels.
    "mechanism": [
        "Focus on the underlying mechanism by which each link drives the next.",
        "Focus on how a change at each link carries through to the next.",
    ],
    "comparison": [
        "Focus on how the ideas along the way resemble and diverge from one another.",
        "Focus on where each idea sits relative to its neighbours in a broader classification.",
    ],
    "sequence": [
        "Focus on the order along the chain and how each link sets the stage for the next.",
        "Focus on which link has to come first and why the order matters.",
    ],
    "structure": [
        "Focus on how each piece is organized within the larger whole.",
        "Focus on the role each piece plays in the overall organization.",
    ],
    "context": [
        "Focus on the background and ideas each link provides for the next.",
        "Focus on the setting in which each link frames the next.",
    ],
    "flow": [
        "Focus on what travels along each link and where it goes next.",
        "Focus on the route material takes from one link to the next.",
    ],
}

_SUFFIXES = ("ically", "ation", "ing", "ies", "ed", "es", "al", "s", "e")
# A few common synonyms of relation words, so a question cannot just paraphrase a label.
SYNONYMS = {
    "caus": {"lead", "trigger", "result", "produc"},
    "precede": {"before", "prior"},
    "preced": {"before", "prior"},
    "contrast": {"differ", "difference", "unlike", "oppos"},
    "type": {"kind", "sort"},
    "alternativ": {"instead"},
    "enabl": {"allow", "permit"},
    "reduc": {"decreas", "lower", "diminish"},
    "explain": {"explanat"},
    "defin": {"definit"},
    "inhibit": {"repress", "suppress", "block"},
    "activat": {"promot", "stimulat"},
    "exampl": {"instanc"},
}
_ID = re.compile(r"\btopic_\d+\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


def stem(word: str) -> str:
    w = word.lower()
    for suf in _SUFFIXES:
        if len(w) - len(suf) >= 4 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def forbidden_stems(labels: list[str]) -> set[str]:
    """Stems of the content words of every label, plus their listed synonyms."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    stops = set(ENGLISH_STOP_WORDS) | {"has", "is", "are", "of", "to", "a", "an", "by", "in"}
    out: set[str] = set()
    for label in labels:
        for word in label.lower().split("_"):
            if word and word not in stops and len(word) > 2:
                s = stem(word)
                out.add(s)
                out.update(SYNONYMS.get(s, set()))
    return out


def label_words_in(text: str, labels: list[str]) -> list[str]:
    """Words of `text` that name a relation label (or a synonym); empty when clean."""
    bad = forbidden_stems(labels)
    hits = []
    for word in _WORD.findall(text.lower()):
        s = stem(word)
        if any(
            s == b or (len(b) >= 5 and s.startswith(b)) or (len(s) >= 5 and b.startswith(s))
            for b in bad
        ):
            hits.append(word)
    return hits


def question_problem(text: str, names: list[str], labels: list[str]) -> str | None:
    """Why a question is not acceptable, or None."""
    if not text.strip():
        return "missing_field"
    if _ID.search(text):
        return "names_concept_id"
    bare = text
    for n in sorted((n for n in names if n), key=len, reverse=True):
        bare = re.sub(re.escape(n), " ", bare, flags=re.IGNORECASE)  # names are not hints
    if label_words_in(bare, labels):
        return "names_relation_label"
    if not any(n.lower() in text.lower() for n in names if n):
        return "not_anchored"
    return None


def family_of(category: str) -> str | None:
    low = category.lower()
    for family, keys in FAMILIES:
        if any(k in low for k in keys):
            return family
    return None


def offline_question(
    names: list[str], focus: list[str], theme: str, labels: list[str], variant: int = 0
) -> str | None:
    """A template question that passes `question_problem`, or None when none does."""
    families = [f for f in (family_of(c) for c in focus) if f]
    family = families[0] if families else None
    first, last = names[0], names[-1]
    candidates: list[str] = []
    # Only the focus's own family (or the generic wording): another family's template would
    # hint at the wrong perspective.
    for fam in [family] if family else []:
        texts = ONE_HOP[fam] if len(names) == 2 else MULTI_HOP[fam]
        texts = texts[variant % len(texts) :] + texts[: variant % len(texts)]
        for t in texts:
            if len(names) == 2:
                candidates.append(t.format(a=first, b=last))
            else:
                via = ", then ".join(names[1:-1])
                candidates.append(f"Trace the connection from {first} through {via} to {last}. {t}")
    words = theme.replace("/", " and ").replace("->", "and").lower()
    candidates.append(
        f"Describe the connection between {first} and {last} from a {words} point of view."
    )
    for text in candidates:
        if question_problem(text, names, labels) is None:
            return text
    return None
