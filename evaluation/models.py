"""Typed contracts of the evaluation stages (questions in, answers, verdicts, claims out)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from kg.paths import ReasoningPath


class Setting(StrEnum):
    base = "base"
    oracle = "oracle"
    noisy = "noisy"
    rag_bm25 = "rag-bm25"
    rag_dense = "rag-dense"


class Strategy(StrEnum):
    plain = "plain"
    one_shot = "one-shot"
    negative = "negative"


class GroundTruth(StrEnum):
    evidence = "evidence"  # the question's focused evidence (default)
    full = "full"  # every fact of the question's concepts


class Fact(BaseModel):
    uid: str
    text: str


class EvalPath(ReasoningPath):
    """The path view an answer is judged against: stored uid, target or distractor, reasons."""

    uid: str
    reasons: list[str] = Field(default_factory=list)
    target: bool
    name: str | None = None
    pos: int | None = None
    # The hop count the Path node stores, checked against its labels when questions load.
    stored_hops: int | None = Field(default=None, validation_alias="hops", exclude=True)

    def edge_evidence(self) -> list[str]:
        """The text that supports each edge: its own reason when there is one per hop."""
        if len(self.reasons) == self.hops:
            return list(self.reasons)
        joined = " ".join(self.reasons) or self.signature
        return [joined] * self.hops


class EvalQuestion(BaseModel):
    uid: str
    id: int
    domain: str
    theme: str | None = None
    text: str
    hop: int
    paths: list[EvalPath]
    evidence: list[Fact] = Field(default_factory=list)
    concepts: dict[str, str | None] = Field(default_factory=dict)  # key -> summary
    concept_words: dict[str, list[str]] = Field(default_factory=dict)  # key -> topic words
    relation_meanings: dict[str, str] = Field(default_factory=dict)  # label -> palette text

    @property
    def targets(self) -> list[EvalPath]:
        return [p for p in self.paths if p.target]

    @property
    def target_uids(self) -> set[str]:
        return {p.uid for p in self.paths if p.target}

    @property
    def ref(self) -> str:
        return f"question {self.domain}#{self.id} (uid {self.uid})"


class AnswerResult(BaseModel):
    text: str
    tokens: int  # generated tokens
    tokens_source: str  # "usage" (server) or the tokenizer that counted them
    prompt_tokens: int = 0
    context_uids: list[str] = Field(default_factory=list)
    model: str = ""


class PathVerdict(BaseModel):
    path_uid: str
    present: bool
    partial: float  # share of the path's edges the answer reproduces (1.0 when present)
    reason: str = ""
    edges_present: list[bool] = Field(default_factory=list)
    # per edge, the index of the answer sentence (split_sentences) the judge matched to it;
    # empty when the judge does not report spans (the LLM judge)
    edge_sentences: list[int] = Field(default_factory=list)


class ClaimResult(BaseModel):
    text: str
    supported: bool
    supporting: str | None = None
    supporting_fact: str | None = None


class JudgeResult(BaseModel):
    verdicts: list[PathVerdict]
    claims: list[ClaimResult] = Field(default_factory=list)
    relevancy: float | None = None
    relevancy_method: str | None = None
    rejected: int = 0  # verdicts naming a path the question does not have
    duplicates: int = 0  # further verdicts on a path already judged (first one kept)
    rejected_sources: int = 0  # "supported" claims citing no known ground-truth sentence
    prompt_tokens: int = 0
    completion_tokens: int = 0


class QuestionResult(BaseModel):
    question: EvalQuestion
    answer_uid: str
    answer: AnswerResult | None  # None when judging a stored answer
    judged: JudgeResult
