"""Judges: an LLM judge (path checklist, claims, relevancy), the offline edge-evidence judge
(the default) and the embedding baseline."""

from evaluation.judges.base import Judge
from evaluation.judges.edge_evidence import EdgeEvidenceJudge
from evaluation.judges.embedding import EmbeddingJudge
from evaluation.judges.llm import LLMJudge

# Offline judges by name (anything else names a judge model on an OpenAI-compatible endpoint).
DEFAULT_JUDGE = "edge-evidence"
OFFLINE_JUDGES = ("edge-evidence", "embedding")

__all__ = [
    "DEFAULT_JUDGE",
    "OFFLINE_JUDGES",
    "EdgeEvidenceJudge",
    "EmbeddingJudge",
    "Judge",
    "LLMJudge",
]
