"""A relation reader learned from the graph's own edge reasons (distant supervision).

Every stored edge A -LABEL-> B has a reason: text stating that relation between its two
concepts. The reader reads a window in which both concepts are mentioned, with the mentions
masked (A's words become `X`, B's become `Y`) and the other words typical of any of the
question's concepts blanked (`_`), so what remains is the connecting words and their order
("X underpin Y", "Y is caus by X", "onli onc X ... can Y"). A linear classifier over the word
n-grams of that masked span predicts the relation class: the label's family (`relations.py`)
with its direction (`cause>` states X -> Y, `cause<` states Y -> X; symmetric families have no
direction). Each reason gives a forward example and, masked the other way round, a reverse one:
the hard negatives that share every topic word and differ only in the relation.

It is fitted on the edge reasons of every question of the graph being judged
(`EdgeEvidenceJudge.learn`, called by `kg eval run|judge` and `kg judge validate`): any graph
trains its own reader, nothing is shipped, and gold labels are never used. It abstains
(returns None, counted by the judge) when the label's class has no training example or the
window's span has no n-gram seen in training: no evidence either way, which is not "absent".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from evaluation.judges.concepts import ConceptProfile, build_profiles
from evaluation.judges.relations import relation_for
from evaluation.models import EvalQuestion

MASK_A, MASK_B, BLANK = "X", "Y", "_"
CONTEXT = 3  # words kept on each side of the two mentions
MAX_SPAN = 40  # words between the mentions beyond which the window states nothing about them
_TOPIC_WEIGHT = 0.5  # a word this typical of some concept of the question is topic, not relation
TRAIN_CONCEPT_THRESHOLD = 1.5  # a reason mentions its concepts less fully than an answer


class ReaderStats(BaseModel):
    examples: int = 0  # masked spans trained on (each reason sentence twice: as stored, reversed)
    classes: list[str] = []


def relation_class(label: str, description: str | None = None, reverse: bool = False) -> str:
    """`family>` (X -> Y), `family<` (Y -> X), or `family` for a symmetric family."""
    rel = relation_for(label, description)
    name = rel.family if rel.family != "label-words" else label
    if rel.symmetric:
        return name
    return name + ("<" if reverse else ">")


def masked_span(
    stems: Sequence[str],
    pos_a: Iterable[int],
    pos_b: Iterable[int],
    profiles: Iterable[ConceptProfile] = (),
) -> list[str] | None:
    """The words around the closest pair of mentions, A's masked `X`, B's `Y`, topic words `_`.

    None when one concept is not mentioned or the two are more than MAX_SPAN words apart."""
    pa, pb = sorted(set(pos_a)), sorted(set(pos_b) - set(pos_a))
    if not pa or not pb:
        return None
    i, j = min(((i, j) for i in pa for j in pb), key=lambda ij: abs(ij[0] - ij[1]))
    lo, hi = min(i, j), max(i, j)
    if hi - lo > MAX_SPAN:
        return None
    topic = {s for p in profiles for s, w in p.weights.items() if w >= _TOPIC_WEIGHT}
    a_set, b_set = set(pa), set(pb)
    out: list[str] = []
    for k in range(max(0, lo - CONTEXT), min(len(stems), hi + CONTEXT + 1)):
        word = (
            MASK_A
            if k in a_set
            else MASK_B
            if k in b_set
            else BLANK
            if stems[k] in topic
            else stems[k]
        )
        if out and word == out[-1] and word in (MASK_A, MASK_B, BLANK):
            continue  # a name of several words is one mention
        out.append(word)
    return out


def _ngrams(words: list[str]) -> list[str]:
    """Word 1-3-grams of a masked span; a bare mask or blank says nothing on its own."""
    grams = list(words)
    grams += [" ".join(words[k : k + 2]) for k in range(len(words) - 1)]
    grams += [" ".join(words[k : k + 3]) for k in range(len(words) - 2)]
    return [g for g in grams if g not in (MASK_A, MASK_B, BLANK)]


class RelationReader:
    """Relation classes from masked spans; see the module docstring."""

    def __init__(self, c: float = 1.0) -> None:
        self.c = c
        self.vectorizer = CountVectorizer(analyzer=_ngrams, binary=True)
        self.model: LogisticRegression | None = None
        self.classes: list[str] = []
        self.stats = ReaderStats()

    # -- training ----------------------------------------------------------------------------
    @staticmethod
    def examples(questions: Iterable[EvalQuestion]) -> tuple[list[list[str]], list[str]]:
        """(masked span, class) pairs from every edge reason of the questions, both ways round.

        An edge's reason is used once however many paths hold it; only paths with one reason
        per hop give edge reasons (a path's single reason may state any of its edges)."""
        from evaluation.judges.edge_evidence import _positions, _windows, concept_infos

        seen: set[tuple[str, str, str, str, str]] = set()
        docs: list[list[str]] = []
        ys: list[str] = []
        for q in questions:
            profiles: dict[str, ConceptProfile] | None = None
            for p in q.paths:
                if len(p.reasons) != p.hops:
                    continue
                for (a, label, b), reason in zip(p.edges(), p.reasons, strict=True):
                    key = (q.domain, a, label, b, reason)
                    if key in seen or not reason.strip() or label == "None":
                        continue
                    seen.add(key)
                    if profiles is None:
                        profiles = build_profiles(concept_infos(q), q.text)
                    pa, pb = profiles[a], profiles[b]
                    desc = q.relation_meanings.get(label)
                    cls = relation_class(label, desc)
                    back = relation_class(label, desc, reverse=True)
                    for w in _windows(reason, 1):
                        if min(pa.score(w.stem_set, w.stems), pb.score(w.stem_set, w.stems)) < (
                            TRAIN_CONCEPT_THRESHOLD
                        ):
                            continue
                        ia, ib = _positions(w, pa, pb), _positions(w, pb, pa)
                        fwd = masked_span(w.stems, ia, ib, profiles.values())
                        if fwd is None:
                            continue
                        docs.append(fwd)
                        ys.append(cls)
                        rev = masked_span(w.stems, ib, ia, profiles.values())
                        if rev is not None:
                            docs.append(rev)
                            ys.append(back)
        return docs, ys

    def fit(self, questions: Iterable[EvalQuestion]) -> RelationReader:
        qs = list(questions)
        docs, ys = self.examples(qs)
        self.stats = ReaderStats(examples=len(docs))
        if len(set(ys)) < 2:
            self.model = None  # nothing to tell apart: the reader abstains on every edge
            return self
        x = self.vectorizer.fit_transform(docs)
        # one BLAS thread: a small model fits several times faster than with threads fighting
        # over a busy machine's cores
        with threadpool_limits(1):
            self.model = LogisticRegression(C=self.c, max_iter=2000).fit(x, ys)
        self.classes = [str(c) for c in self.model.classes_]
        self.stats.classes = self.classes
        return self

    # -- reading -----------------------------------------------------------------------------
    def probabilities(self, spans: list[list[str]]) -> np.ndarray | None:
        """Class probabilities per span (rows), None when the reader was not trained."""
        if self.model is None or not spans:
            return None
        x = self.vectorizer.transform(spans)
        probs = self.model.predict_proba(x)
        known = np.asarray(x.sum(axis=1)).ravel() > 0
        probs[~known] = np.nan  # no n-gram seen in training: no evidence
        return probs

    def score(self, spans: list[list[str]], own: str, rivals: Iterable[str]) -> float | None:
        """How much more the best span reads as `own` than as its rivals (its reverse and the
        sibling labels' classes between the same concepts): own / (own + best rival), in
        [0, 1], 0.5 = undecided. None: the reader abstains (class unknown, no known n-gram)."""
        if own not in self.classes:
            return None
        probs = self.probabilities(spans)
        if probs is None:
            return None
        col = {c: k for k, c in enumerate(self.classes)}
        others = [col[r] for r in set(rivals) if r in col and r != own]
        best: float | None = None
        for row in probs:
            if np.isnan(row).any():
                continue
            mine = float(row[col[own]])
            rival = max((float(row[k]) for k in others), default=0.0)
            if not others:  # no rival known: the class against the reader's average belief
                rival = 1.0 / len(self.classes)
            s = mine / (mine + rival) if mine + rival > 0 else 0.5
            best = s if best is None else max(best, s)
        return best
