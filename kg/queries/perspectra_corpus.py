"""The in-memory view of the PERSPECTRA graph that task builders and baselines work on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kg.ids import content_uid


@dataclass(frozen=True)
class CExpansion:
    uid: str
    text: str


@dataclass(frozen=True)
class COpinion:
    uid: str
    text: str
    stance: str
    expansions: tuple[CExpansion, ...]


@dataclass(frozen=True)
class CTopic:
    uid: str
    text: str
    opinions: tuple[COpinion, ...]

    def side(self, stance: str) -> list[COpinion]:
        return [o for o in self.opinions if o.stance == stance]


@dataclass(frozen=True)
class Corpus:
    topics: tuple[CTopic, ...]

    @property
    def fingerprint(self) -> str:
        """Changes whenever an opinion or expansion is added or removed."""
        return content_uid(
            sorted(e.uid for t in self.topics for o in t.opinions for e in o.expansions)
        )[:12]

    def opinions(self) -> list[tuple[CTopic, COpinion]]:
        return [(t, o) for t in self.topics for o in t.opinions]

    def expansions(self) -> list[tuple[CTopic, COpinion, CExpansion]]:
        return [(t, o, e) for t, o in self.opinions() for e in o.expansions]


def sorted_corpus(topics: list[CTopic]) -> Corpus:
    # Canonical order (by uid) so a seed gives the same items whatever order the graph returns.
    return Corpus(
        tuple(
            sorted(
                (
                    CTopic(
                        t.uid,
                        t.text,
                        tuple(
                            sorted(
                                (
                                    COpinion(
                                        o.uid,
                                        o.text,
                                        o.stance,
                                        tuple(sorted(o.expansions, key=lambda e: e.uid)),
                                    )
                                    for o in t.opinions
                                    if o.expansions
                                ),
                                key=lambda o: o.uid,
                            )
                        ),
                    )
                    for t in topics
                ),
                key=lambda t: t.uid,
            )
        )
    )


def corpus_from_records(records: list[dict[str, Any]]) -> Corpus:
    """From `perspectra/corpus` query records."""
    return sorted_corpus(
        [
            CTopic(
                r["topic_uid"],
                r["topic"],
                tuple(
                    COpinion(
                        o["uid"],
                        o["text"],
                        o["stance"],
                        tuple(CExpansion(e["uid"], e["text"]) for e in o["expansions"]),
                    )
                    for o in r["opinions"]
                ),
            )
            for r in records
        ]
    )


def load_corpus(store: Any) -> Corpus:
    return corpus_from_records(store.read("perspectra/corpus"))
