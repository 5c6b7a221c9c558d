"""Judges: an LLM judge (path checklist, claims, relevancy), the offline edge-evidence judge
(the default) and the embedding baseline; and how far each can be trusted.

    registry.py                   the one factory: judges by name with their options
    base.py, edge_evidence.py, concepts.py, relations.py, text.py   the offline judge's parts
    llm.py, votes.py              the LLM judge (schema per call, shuffled votes)
    embedding.py, vectors.py      the embedding baseline
    gold.py, gold_kinds.py        gold labels and the kind of answers they hold
    validation.py, calibration.py a judge against gold (kappa with CIs); thresholds by CV
    trust.py                      what a report says about its judge
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from evaluation.judges.base import Judge
from evaluation.judges.registry import DEFAULT_JUDGE

if TYPE_CHECKING:
    from evaluation.judges.edge_evidence import EdgeEvidenceJudge
    from evaluation.judges.embedding import EmbeddingJudge
    from evaluation.judges.llm import LLMJudge

# Imported when first named: the offline judges pull in scikit-learn and SciPy (seconds), which
# a command that makes no such judge (`kg eval plan`, an LLM-judged run) need not load.
_LAZY = {
    "EdgeEvidenceJudge": "evaluation.judges.edge_evidence",
    "EmbeddingJudge": "evaluation.judges.embedding",
    "LLMJudge": "evaluation.judges.llm",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_JUDGE",
    "EdgeEvidenceJudge",
    "EmbeddingJudge",
    "Judge",
    "LLMJudge",
]
