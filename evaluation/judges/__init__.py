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

from evaluation.judges.base import Judge
from evaluation.judges.edge_evidence import EdgeEvidenceJudge
from evaluation.judges.embedding import EmbeddingJudge
from evaluation.judges.llm import LLMJudge
from evaluation.judges.registry import DEFAULT_JUDGE

__all__ = [
    "DEFAULT_JUDGE",
    "EdgeEvidenceJudge",
    "EmbeddingJudge",
    "Judge",
    "LLMJudge",
]
