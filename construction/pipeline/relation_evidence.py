"""Offline relations from evidence: which concepts a sentence mentions, which palette relations
its wording expresses, and in which direction.

An edge is proposed only for a sentence (or two adjacent sentences of one chunk) that mentions
both concepts. Its label is a palette relation whose cue words (from the label's own words and
a small lexicon of English relation verbs, plus the words of an English description) occur in
the evidence, scoring at least a minimum, where the dependency parse makes the two concepts the
cue's arguments (`syntax.link`). Its direction follows the parse: the subject side is the
source ("Force causes acceleration"); a one-word cue in the passive or an inverse cue makes the
object side the source ("Acceleration is caused by force", "... because of force"). Its reason
is the evidence, quoted verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from construction.pipeline.noun_phrases import norm
from construction.pipeline.syntax import Link, link, parser
from kg.package_data import package_toml
from kg.palette import PaletteRelation

if TYPE_CHECKING:
    from spacy.tokens import Doc


def _load_lexicon() -> dict[str, list[tuple[str, bool]]]:
    """The cue lexicon (relation_cues.toml), keyed by the stem of a label word: per key its
    cues in order, (regex over the lower-cased evidence, inverse)."""
    table = package_toml("construction.pipeline", "relation_cues.toml")
    return {key: [(rx, inverse) for rx, inverse in cues] for key, cues in table.items()}


LEXICON = _load_lexicon()

# Qualifiers of a label ("political cause"): the evidence must also speak of that sphere.
QUALIFIERS: dict[str, str] = {
    "politic": r"politic(s|al)?|government(s)?|state(s)?\b|power|war(s)?\b|treat(y|ies)|"
    r"king(s)?|parliament|monarch(y|s)?|empire(s)?|nation(s|al)?|part(y|ies)|"
    r"revolution(s|ary)?|rule(rs|d)?\b|constitution|independence|colon(y|ies|ial)|"
    r"military|alliance(s)?|sovereign(ty)?|vot(e|es|ing)|democra(cy|tic)|law(s)?",
    "econom": r"econom(y|ic|ies)|trade|market(s)?|industr(y|ial|ies)|tax(es)?|money|"
    r"wealth|capital(ism|ist)?|labou?r|wage(s)?|price(s)?|profit(s)?|goods|"
    r"commerc(e|ial)|financ(e|ial)|raw materials|debt|bank(s)?|agricultur(e|al)|"
    r"production|factor(y|ies)",
    "social": r"social|societ(y|ies)|class(es)?\b|people|women|famil(y|ies)|workers|"
    r"communit(y|ies)|cultur(e|al)|religio(n|us)|population|urban|peasant(s)?|"
    r"education|rights|status|slave(s|ry)?",
}
_LABEL_STOP = {
    "is",
    "a",
    "an",
    "the",
    "of",
    "to",
    "by",
    "or",
    "in",
    "for",
    "has",
    "with",
    "and",
    "as",
    "on",
    "process",
    "phenomenon",
    "have",
    "into",
    "from",
    "at",
}
_DESC_WORD = re.compile(r"[a-z]{5,}")
# What may open the second of two adjacent sentences to relate it to the first.
CONNECTIVE = re.compile(
    r"^(as a result|consequently|therefore|thus|hence|in turn|in contrast|"
    r"by contrast|for example|for instance|later|afterwards?|subsequently|"
    r"because of this|instead)\b",
    re.IGNORECASE,
)
CUE_WEIGHT, QUALIFIER_WEIGHT, DESC_WEIGHT = 1.0, 0.5, 0.25


def _stem(word: str) -> str:
    w = word.lower()
    for suf in ("ations", "ation", "ives", "ive", "ing", "ies", "es", "ed", "s", "e", "y"):
        if len(w) - len(suf) >= 4 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def _lexicon_key(word: str) -> str | None:
    s = _stem(word)
    for key in LEXICON:
        if s.startswith(key) or key.startswith(s):
            return key
    return None


class LabelCues(BaseModel):
    """What the offline matcher looks for in evidence for one palette relation."""

    name: str
    category: str
    cues: list[tuple[str, bool]]  # (regex, inverse)
    qualifiers: list[str]  # regexes that must also occur (all of them)
    description_stems: list[str]  # English description words (weak cues)
    passive_label: bool  # IS_DEFINED_BY reads passively: "by" does not flip


def label_cues(rel: PaletteRelation) -> LabelCues:
    words = [w for w in rel.name.lower().split("_") if w and w not in _LABEL_STOP]
    cues: list[tuple[str, bool]] = []
    qualifiers: list[str] = []
    keys = [_lexicon_key(w) for w in words]
    if any(k not in (None, "function") for k in keys):
        # "function" is a weak cue on its own: SERVES_FUNCTION is cued by "serves".
        words = [w for w, k in zip(words, keys, strict=True) if k != "function"]
    for w in words:
        q = next((v for k, v in QUALIFIERS.items() if _stem(w).startswith(k)), None)
        if q:
            qualifiers.append(q)
            continue
        key = _lexicon_key(w)
        # Unknown word: its stem ("supplies" -> "suppl") and any ending.
        stem = _stem(w).rstrip("iy") or w
        cues.extend(LEXICON[key] if key else [(re.escape(stem) + r"\w*", False)])
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    desc = sorted(
        {
            _stem(w)
            for w in _DESC_WORD.findall(rel.description.lower())
            if w not in ENGLISH_STOP_WORDS
        }
    )
    return LabelCues(
        name=rel.name,
        category=rel.category,
        cues=cues,
        qualifiers=qualifiers,
        description_stems=desc,
        passive_label=rel.name.endswith("_BY"),
    )


@dataclass(frozen=True)
class Mention:
    concept: str  # concept key
    start: int
    end: int


def term_pattern(term: str) -> re.Pattern[str]:
    """Whole-word, case-insensitive, either apostrophe, an optional plural -s/-es."""
    words = [re.escape(w).replace("'", "['’]") for w in norm(term).split()]
    return re.compile(r"(?<![\w])" + r"\s+".join(words) + r"(?:e?s)?(?![\w])", re.IGNORECASE)


def find_mentions(
    text: str, terms: dict[str, list[re.Pattern[str]]], every: bool = False
) -> list[Mention]:
    """Mentions of concepts in `text`: longest match wins where two terms overlap; a concept's
    first mention only, or with `every` all of them (a cue joins the nearest two)."""
    spans: list[Mention] = []
    for key, patterns in terms.items():
        for pat in patterns:
            spans.extend(Mention(key, m.start(), m.end()) for m in pat.finditer(text))
    spans.sort(key=lambda m: (-(m.end - m.start), m.start))
    taken: list[Mention] = []
    for m in spans:
        if all(m.end <= t.start or m.start >= t.end for t in taken):
            taken.append(m)
    ordered = sorted(taken, key=lambda m: m.start)
    return ordered if every else first_mentions(ordered)


def first_mentions(mentions: list[Mention]) -> list[Mention]:
    """Each concept's first mention, in text order, from all mentions in text order."""
    first: dict[str, Mention] = {}
    for m in mentions:
        first.setdefault(m.concept, m)
    return list(first.values())


class LabelMatch(BaseModel):
    label: str
    category: str
    score: float
    source: str  # concept key
    target: str


def _orient(
    a: Mention, b: Mention, cue_start: int, cue_end: int, inverse: bool
) -> tuple[Mention, Mention]:
    """(source, target) for mentions a (first) and b (second) around a cue."""
    first, second = (a, b) if a.start <= b.start else (b, a)
    if not inverse:
        return first, second
    # Inverse cue: the concept right after the cue is the source ("because of X").
    after = [m for m in (first, second) if m.start >= cue_end]
    if after:
        src = after[0]
        return src, (second if src is first else first)
    return second, first


WORD = re.compile(r"[\w’'-]+")  # a word, for counting gaps


def match_labels(
    text: str,
    a: Mention,
    b: Mention,
    labels: list[LabelCues],
    min_score: float,
    cue_window: tuple[int, int] | None = None,
    doc: Doc | None = None,
) -> list[LabelMatch]:
    """Every palette relation the evidence expresses between mentions a and b, with its
    direction; best first. In one sentence, a cue counts only where the dependency parse
    (`syntax.link`, `doc` or parsed here) makes the two mentions its arguments, one on its
    subject side and one on its object side; the subject is the source, unless the cue reads
    backwards (inverse cues such as "due to", or a one-word cue in the passive: "X is caused by
    Y"). With `cue_window` (two-sentence evidence), only the connective that opens the second
    sentence counts, and the sentences' order gives the direction. Score = the cue, plus
    qualifiers and description words; below `min_score` a label is not proposed."""
    low = text.lower()
    if cue_window is None and doc is None:
        doc = parser()(text)
    spans = ((a.start, a.end), (b.start, b.end))
    # Labels share cue words (the three "... cause of" labels of history): parse each cue once.
    links: dict[tuple[int, int], Link | None] = {}
    out: list[LabelMatch] = []
    for lab in labels:
        best: tuple[Mention, Mention] | None = None
        for regex, inverse in lab.cues:
            for m in re.finditer(r"(?<![a-z])(?:" + regex + r")(?![a-z])", low):
                if (a.start <= m.start() < a.end) or (b.start <= m.start() < b.end):
                    continue  # a cue inside a concept's own name is not a statement
                if cue_window is not None:
                    if cue_window[0] <= m.start() < cue_window[1]:
                        best = _orient(a, b, m.start(), m.end(), inverse)
                        break
                    continue
                assert doc is not None
                cue = (m.start(), m.end())
                if cue not in links:
                    links[cue] = link(doc, spans, cue)
                found = links[cue]
                if found is None:
                    continue  # the cue does not join these two mentions in one statement
                subj, obj = (a, b) if found.subject == 0 else (b, a)
                # "X is caused by Y": a one-word cue in the passive reads backwards (unless the
                # label itself reads passively, IS_DEFINED_BY); multi-word cues such as
                # "found in" or "required for" are written for the passive already.
                if found.passive and " " not in m.group(0) and not lab.passive_label:
                    inverse = not inverse
                best = (obj, subj) if inverse else (subj, obj)
                break
            if best is not None:
                break
        if best is None:
            continue
        if lab.qualifiers and not all(
            re.search(r"(?<![a-z])(?:" + q + r")(?![a-z])", low) for q in lab.qualifiers
        ):
            continue
        src, dst = best
        words = {_stem(w) for w in _DESC_WORD.findall(low)}
        desc = min(2, sum(1 for s in lab.description_stems if s in words)) * DESC_WEIGHT
        score = CUE_WEIGHT + (QUALIFIER_WEIGHT * len(lab.qualifiers)) + desc
        if score >= min_score:
            out.append(
                LabelMatch(
                    label=lab.name,
                    category=lab.category,
                    score=round(score, 3),
                    source=src.concept,
                    target=dst.concept,
                )
            )
    out.sort(key=lambda m: (-m.score, m.label))
    return out
