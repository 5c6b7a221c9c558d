"""The corpus view built straight from import rows (no database: unit tests, benchmarks)."""

from __future__ import annotations

from construction.perspectra.rows import ImportRows
from kg.queries.perspectra_corpus import CExpansion, COpinion, Corpus, CTopic, sorted_corpus


def corpus_from_rows(rows: ImportRows) -> Corpus:
    """From import rows (no database needed: unit tests, benchmarks)."""
    exps: dict[str, list[CExpansion]] = {}
    for e in rows.expansions:
        exps.setdefault(e.opinion_uid, []).append(CExpansion(e.uid, e.text))
    ops: dict[str, list[COpinion]] = {}
    for o in rows.opinions:
        ops.setdefault(o.topic_uid, []).append(
            COpinion(o.uid, o.text, o.stance, tuple(exps.get(o.uid, ())))
        )
    return sorted_corpus([CTopic(t.uid, t.text, tuple(ops.get(t.uid, ()))) for t in rows.topics])
