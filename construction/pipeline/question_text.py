"""Offline question templates per relation-category family, and the checks every question
(template or model) must pass: no relation labels or their synonyms, no concept ids, anchored
on concept names. Templates hint at the focus in general conceptual words."""

from __future__ import annotations

import re
import zlib

FAMILIES: list[tuple[str, tuple[str, ...]]] = [
    (
        "mechanism",
        (
            "caus",
            "consequen",
            "regulat",
            "effect",
            "control",
            "mechan",
            "reduc",
            "enabl",
            "explain",
            "inhibit",
            "activ",
            "promot",
            "result",
        ),
    ),
    (
        "comparison",
        ("compar", "contrast", "taxonom", "altern", "classif", "similar", "type", "exampl"),
    ),
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
            "preced",
            "step",
            "cycl",
        ),
    ),
    (
        "structure",
        (
            "struct",
            "function",
            "compos",
            "part",
            "anatom",
            "organi",
            "defin",
            "component",
            "locat",
            "serv",
        ),
    ),
    ("context", ("context", "ideolog", "framework", "background", "cultur", "basis")),
    (
        "flow",
        (
            "flow",
            "transport",
            "supply",
            "movement",
            "transfer",
            "exchange",
            "produc",
            "requir",
            "input",
            "output",
        ),
    ),
]

# The hint of each family, in the published questions' manner ("..., focusing on the
# underlying mechanism"): general conceptual words, never a relation label.
HINTS: dict[str, list[str]] = {
    "mechanism": [
        "focusing on the underlying mechanism",
        "focusing on how a change in one drives a change in the other",
        "with attention to the process that links them",
        "focusing on what makes one act on the other",
    ],
    "comparison": [
        "focusing on what they share and where they part ways",
        "focusing on their scope and defining features",
        "focusing on where each sits in a broader classification",
        "focusing on what sets them apart",
    ],
    "sequence": [
        "focusing on which must be established first",
        "focusing on the order in which they unfold",
        "focusing on how the earlier one sets the stage for the later one",
        "focusing on the place each takes in a larger workflow",
    ],
    "structure": [
        "focusing on the role each plays within the larger whole",
        "focusing on how one is built into the other",
        "focusing on their organization and the part each takes",
        "focusing on how their make-up relates",
    ],
    "context": [
        "focusing on the ideas and circumstances that frame them",
        "focusing on the background one provides for the other",
        "focusing on the setting in which one shaped the other",
        "focusing on the beliefs and conditions that tie them together",
    ],
    "flow": [
        "focusing on the essential resources one provides for the other",
        "focusing on what one takes in and what it gives out",
        "focusing on what travels between them and where it goes",
        "focusing on the route material takes from one to the other",
    ],
}
# {a}, {b}: endpoint names; {h}: the hint. Each opens with a fixed word (names stay as the
# facts write them, e.g. lower case).
ONE_HOP = [
    "Explain the connection between {a} and {b}, {h}.",
    "Describe how {a} and {b} are related, {h}.",
    "{H}, explain what links {a} to {b}.",
    "Considering {a} and {b}, explain their relationship by {hg}.",
    "What ties {a} to {b}? Answer by {hg}.",
    "Discuss {a} in relation to {b}, {h}.",
]
# {chain}: "a, b and c"; {via}: the inner concepts. No template puts a verb after a bare name:
# a name may be singular or plural ("collisions"), and "how collisions connects" reads badly.
MULTI_HOP = [
    "Considering {chain}, explain their relationship by {hg}.",
    "Explain the connection from {a} to {b} by way of {via}, {h}.",
    "Starting from {a}, follow the links through {via} to {b}, {h}.",
    "{H}, describe the route from {a}, through {via}, to {b}.",
    "Describe the chain of ideas from {a} via {via} to {b}, {h}.",
    "What bearing does {a} have on {b}, given the role of {via}? Answer by {hg}.",
]

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


def _gerund(hint: str) -> str:
    """ "focusing on X" -> "focusing on X"; "with attention to X" -> "paying attention to X"."""
    return (
        hint
        if hint.startswith("focusing")
        else hint.replace("with attention", "paying attention", 1)
    )


def _and(names: list[str]) -> str:
    if len(names) <= 1:
        return names[0] if names else ""
    return ", ".join(names[:-1]) + " and " + names[-1]


def offline_question(
    names: list[str],
    focus: list[str],
    theme: str,
    labels: list[str],
    variant: int = 0,
    avoid: set[str] | None = None,
) -> str | None:
    """A template question that names the endpoint concepts, hints at the focus's family and
    passes `question_problem`; never one of `avoid` (the domain's questions so far). Templates
    and hints rotate with `variant` and the concepts, so siblings read differently."""
    families = [f for f in (family_of(c) for c in focus) if f]
    family = families[0] if families else None
    avoid = avoid or set()
    first, last = names[0], names[-1]
    seed = zlib.crc32("|".join(names).encode()) + variant
    candidates: list[str] = []
    if family:
        # Only the focus's own family: another family's hint would point elsewhere.
        hints = HINTS[family]
        templates = ONE_HOP if len(names) == 2 else MULTI_HOP
        for i in range(len(templates) * len(hints)):
            t = templates[(seed + i) % len(templates)]
            h = hints[(seed // len(templates) + i // len(templates) + variant) % len(hints)]
            candidates.append(
                t.format(
                    a=first,
                    b=last,
                    via=_and(names[1:-1]) or "",
                    chain=_and(names),
                    h=h,
                    hg=_gerund(h),
                    H=h[0].upper() + h[1:],
                )
            )
    words = theme.replace("/", " and ").replace("->", "and").lower()
    candidates.append(
        f"Describe the connection between {first} and {last} from a {words} point of view."
    )
    for text in dict.fromkeys(candidates):
        if text not in avoid and question_problem(text, names, labels) is None:
            return text
    return None
