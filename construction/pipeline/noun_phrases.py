"""A small POS-free noun-phrase chunker and the c-TF-IDF naming of concepts.

Tagging every fact would cost seconds per build on 2 cores, so phrases are cut the way a
determiner/preposition boundary rule cuts them: runs of content words between stop words and
punctuation, plus one internal "of" ("conservation of momentum"). A concept is then named by the
phrase that is most distinctive of its facts (class-based TF-IDF over these phrases), never by a
generic word; the tagger (`syntax.mostly_adjective`) checks only the one-word names it picks.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*|[,;:()\[\]\"“”—–.!?]")
_PUNCT = set(',;:()[]"“”—–.!?')
# Words that never name a concept on their own: the reader's and the author's vocabulary
# ("answer", "example", "figure"), and nouns too general to tell one concept from another.
NAME_STOP = frozenset(
    """
answer answers question questions concept concepts idea ideas thing things example examples
figure figures table tables chapter chapters section sections problem problems solution
solutions case cases fact facts result results kind kinds sort sorts lot lots part parts way
ways term terms form forms order level levels end time times point points today year years
law laws theory theories model models system systems effect effects change changes amount
amounts value values quantity quantities object objects body bodies state states method
methods principle principles study studies field fields area areas role roles factor factors
group groups reason reasons approach approaches use uses instance instances aspect aspects
feature features property properties type types number numbers set sets step steps stage
stages process processes many much one two three first second third side sides unit units
result work works direction directions size place places line lines hand hands people person
thing something someone anything everything nothing information data equation equations
situation situations condition conditions event events period periods century centuries
moment moments fraction fractions portion lesson lessons summary note notes topic topics
understanding knowledge counterintuitive interesting important common general specific
certain different similar various possible able likely known called following addition
""".split()
)
_ADJ_SUFFIXES = ("ic", "al", "ous", "ive", "ful", "less", "able", "ible", "ary", "ent", "ant")
MAX_WORDS = 4


# sklearn's English stop words hold content words too ("system", "amount", "part"); a phrase
# boundary is a function word only.
_CONTENT_IN_SKLEARN = {
    "system",
    "amount",
    "fire",
    "part",
    "side",
    "top",
    "bottom",
    "back",
    "front",
    "full",
    "interest",
    "detail",
    "name",
    "move",
    "mill",
    "bill",
    "thick",
    "thin",
    "empty",
    "second",
    "first",
    "third",
    "computer",
    "con",
    "de",
    "well",
    "light",
    "found",
    "fill",
    "cry",
    "sincere",
    "hundred",
}
_VERB_CONTEXT = {
    "to",
    "can",
    "cannot",
    "will",
    "may",
    "must",
    "could",
    "would",
    "should",
    "not",
    "does",
    "do",
    "did",
    "might",
}
_NOUN_CONTEXT = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "its",
    "their",
    "his",
    "her",
    "each",
    "every",
    "of",
}


@cache
def function_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS - _CONTENT_IN_SKLEARN) | {
        "also",
        "thus",
        "however",
        "often",
        "called",
        "like",
    }


@cache
def stop_words() -> frozenset[str]:
    """Words that never name a concept on their own."""
    return function_words() | NAME_STOP


def norm(text: str) -> str:
    """Lower case, straight apostrophes, single spaces: how names and facts are compared."""
    return " ".join(text.replace("’", "'").lower().split())


def _words(sentence: str) -> list[str]:
    return [t.replace("’", "'").lower().strip("'-") for t in _TOKEN.findall(sentence)]


def _base(word: str) -> str:
    for suf in ("ies", "es", "s", "ed", "ing"):
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            return word[: -len(suf)] + ("y" if suf == "ies" else "")
    return word


# Common verbs of expository text; the corpus can overrule any of them by using it as a noun
# ("the flow", "a supply").
COMMON_VERBS = frozenset(
    """
be have do does say make go take come see know get give find think tell become show leave put
bring begin keep hold write stand let mean set meet run pay sit speak lie lead read grow lose
fall send build draw break spend cut rise drive choose seek throw catch deal win lay sell fight
reduce increase decrease contain include release carry lift pump flow drain supply provide
produce cause prevent allow enable require use form create remove add move turn store protect
control affect occur exist remain describe explain represent consist depend relate apply act
change develop follow involve result refer receive replace return serve support travel treat
cross enter pass reach start stop end join lower raise fill feed soak hit sit lie sits lies
absorb emit convert transfer combine split bind attach break divide belong differ vary appear
seem help try call look live happen believe work play turn ask need want like
""".split()
)


def guess_verbs(texts: list[str]) -> frozenset[str]:
    """Base forms the corpus uses as verbs ("to accelerate", "can describe") and never as
    nouns ("the force"): without tagging every fact, this is what cuts "force accelerates" in
    two."""
    verbs: set[str] = set()
    nouns: set[str] = set()
    for text in texts:
        raw = _TOKEN.findall(text)
        words = _words(text)
        for prev, word, tok in zip(words, words[1:], raw[1:], strict=False):
            if prev in _VERB_CONTEXT and tok[:1].islower():  # "due to Einstein" is no verb
                verbs.add(word)
            elif prev in _NOUN_CONTEXT:
                nouns.add(word)
                nouns.add(_base(word))
    return frozenset((verbs | COMMON_VERBS) - nouns)


def _content(low: str, verbs: frozenset[str]) -> bool:
    if len(low) <= 2 or low in function_words() or low.endswith("ly"):
        return False
    if any(ch.isdigit() for ch in low):
        return False
    if low in verbs:
        return False
    # Third person present ("accelerates"); participles stay: they are often adjectives
    # ("isolated system").
    if (
        low.endswith("s")
        and not low.endswith("ss")
        and (_base(low) in verbs or _base(low) + "e" in verbs or low[:-1] in verbs)
    ):
        return False
    return True


def noun_phrases(sentence: str, verbs: frozenset[str] = frozenset()) -> list[str]:
    """Candidate noun phrases of a sentence, lower case, 1-4 words, with their sub-phrases.

    A run of content words is cut at function words, punctuation and words the corpus uses as
    verbs (`guess_verbs`); two runs joined by a single "of" also form a phrase
    ("conservation of momentum").
    """
    runs: list[list[str]] = []
    joins: list[bool] = []  # joins[i]: run i and run i+1 are separated by exactly "of"
    run: list[str] = []
    gap: list[str] = []
    for tok in _TOKEN.findall(sentence) + ["."]:
        low = tok.replace("’", "'").lower().strip("'-")
        if tok not in _PUNCT and _content(low, verbs):
            if not run and runs:
                joins.append(gap == ["of"])
            run.append(low)
            gap = []
            continue
        if run:
            runs.append(run)
            run = []
        gap.append(low if tok not in _PUNCT else "|")
    out: list[str] = []
    for r in runs:
        for n in range(1, min(MAX_WORDS, len(r)) + 1):
            out.extend(" ".join(r[i : i + n]) for i in range(len(r) - n + 1))
    for i, joined in enumerate(joins):
        if joined and i + 1 < len(runs):
            for left in (runs[i][-1:], runs[i][-2:]):
                for right in (runs[i + 1][:1], runs[i + 1][:2]):
                    if len(left) + len(right) <= MAX_WORDS:
                        out.append(" ".join([*left, "of", *right]))
    return list(dict.fromkeys(out))


def nameable(phrase: str) -> bool:
    """A phrase that may name a concept: no function word at either end, not made of generic
    words only ("second law" is not a name, "Newton's second law" is)."""
    words = phrase.split()
    if not words or words[0] in function_words() or words[-1] in function_words():
        return False
    if all(w in NAME_STOP or w == "of" for w in words):
        return False
    if _participle(words[-1]):  # "ejected", "charged": a noun phrase ends on its noun
        return False
    return not (len(words) == 1 and len(phrase) < 4)


# Nouns ending in "-ed" that the participle rule would otherwise refuse.
_ED_NOUNS = frozenset({"hundred", "watershed", "bloodshed", "seabed", "riverbed", "seaweed"})


def _participle(word: str) -> bool:
    """A past participle or "-ed" adjective ("ejected", "isolated", "died"); not "speed"."""
    if len(word) >= 4 and word.endswith("ied"):  # "died", "carried", "allied"
        return True
    return (
        len(word) >= 6
        and word.endswith("ed")
        and not word.endswith("eed")
        and word not in _ED_NOUNS
    )


def ctfidf_phrases(docs: list[list[str]], top_n: int = 10) -> list[list[tuple[str, float]]]:
    """Class-based TF-IDF over noun phrases: `docs[k]` = the facts of concept k; per concept,
    the `top_n` nameable phrases with their scores, best first. A phrase counts once per fact;
    longer phrases get a small bonus (they name a concept more precisely than their head)."""
    verbs = guess_verbs([f for facts in docs for f in facts])
    counts = [Counter(p for fact in facts for p in noun_phrases(fact, verbs)) for facts in docs]
    total = Counter[str]()
    for c in counts:
        total.update(c)
    avg = sum(sum(c.values()) for c in counts) / max(len(counts), 1)
    out = []
    for c in counts:
        size = max(sum(c.values()), 1)
        scored = []
        for phrase, n in c.items():
            if not nameable(phrase):
                continue
            words = phrase.split()
            bonus = 1.0 + 0.35 * (len(words) - 1)
            if len(words) == 1 and words[0].endswith(_ADJ_SUFFIXES):
                bonus *= 0.6  # likely an adjective ("kinetic"), a poor name on its own
            support = 1.0 if n >= 2 else 0.5  # a phrase of one fact is weak evidence
            score = (n / size) * math.log(1 + avg / total[phrase]) * bonus * support
            scored.append((phrase, round(score, 6)))
        scored.sort(key=lambda t: (-t[1], t[0]))
        out.append(scored[:top_n])
    return out


def surface_form(phrase: str, facts: list[str]) -> str:
    """How the facts write `phrase`: the most frequent spelling not at a sentence start (keeps
    "Newton's laws", "DNA polymerase"); lower case when it only ever opens a sentence."""
    pattern = re.compile(
        r"\b" + r"\s+".join(re.escape(w).replace("'", "['’]") for w in phrase.split()) + r"\b",
        re.IGNORECASE,
    )
    seen: Counter[str] = Counter()
    for fact in facts:
        for m in pattern.finditer(fact):
            if m.start() > 0:
                seen[" ".join(m.group(0).split())] += 1
    if seen:
        return sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return phrase


def texts_holding(name: str, texts: list[str]) -> Iterator[str]:
    """The texts in which the name (case-insensitive, either apostrophe) appears as whole
    words, lazily and in order."""
    n = norm(name)
    if not n:
        return
    pattern = re.compile(r"(?<![a-z0-9])" + re.escape(n) + r"(?![a-z0-9])")
    yield from (t for t in texts if pattern.search(norm(t)))


def occurs_in(name: str, texts: list[str]) -> bool:
    """The name (case-insensitive, either apostrophe) appears as whole words in some text."""
    return next(texts_holding(name, texts), None) is not None


def terms_of_name(name: str, terms: list[str]) -> list[str]:
    """The mention terms that share a content word with the concept's name ("breakdown of
    glucose" for glucose, not "atp molecules"): a term c-TF-IDF merely found near the concept
    ("living things" for nutrients) would let a sentence about something else stand as
    evidence for it."""
    own = {_base(w) for w in _words(name) if w not in function_words()}
    return [t for t in terms if own & {_base(w) for w in _words(t)}]
