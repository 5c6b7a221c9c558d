"""Judges: an LLM judge (path checklist, claims, relevancy) and the embedding baselines."""

from evaluation.judges.base import Judge
from evaluation.judges.embedding import EmbeddingJudge
from evaluation.judges.llm import LLMJudge

__all__ = ["EmbeddingJudge", "Judge", "LLMJudge"]
