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
    concept_names: dict[str, str] = Field(default_factory=dict)  # key -> what a person reads
    relation_meanings: dict[str, str] = Field(default_factory=dict)  # label -> palette text
    imported: bool = False  # from a published file (`kg import`), not a `kg build` draft

    @property
    def targets(self) -> list[EvalPath]:
        return [p for p in self.paths if p.target]

    @property
    def target_uids(self) -> set[str]:
        return {p.uid for p in self.paths if p.target}

    @property
    def ref(self) -> str:
        return f"question {self.domain}#{self.id} (uid {self.uid})"


class AnswerVariant(BaseModel):
    """Which variant of a question's answer this is: the sample index and (for robustness
    profiles) a context perturbation, a formulation and decoder settings. The default variant
    (sample 0, nothing perturbed) is the plain answer of a run without variants."""

    sample: int = Field(default=0, ge=0)
    context: str | None = None  # id of a context perturbation
    formulation: str | None = None  # name of a question formulation
    decoder: dict[str, float | int | str] | None = None  # sampling parameters sent
    # the text of the context perturbation put before the question (stored on the answer;
    # not identifying: the id and the run's seed determine it)
    preamble: str | None = None
    # PROOF: the question as asked under `formulation` (None: the stored text) and the
    # distractor path whose relation an adversarial or hint formulation names
    question_text: str | None = None
    hint_path: str | None = None
    decoder_point: str | None = None  # id of a `--decoders` grid point ("d1", ...)

    def key(self) -> dict[str, object] | None:
        """The fields that identify the variant (None for the default one): part of its uid.
        Decoder settings are recorded, not identifying: they follow from the run's spec (a grid
        point is identified by its id)."""
        out: dict[str, object] = {}
        if self.sample:
            out["sample"] = self.sample
        if self.context is not None:
            out["context"] = self.context
        if self.formulation is not None:
            out["formulation"] = self.formulation
        if self.decoder_point is not None:
            out["decoder_point"] = self.decoder_point
        return out or None


class Confidence(BaseModel):
    """Token log-probabilities of an answer, summarised (FRS ranks samples by `mean_logprob`)."""

    mean_logprob: float  # mean natural-log probability of the generated tokens
    low_share: float  # share of tokens below LOW_TOKEN_LOGPROB
    tokens: int  # tokens with a log-probability


class AnswerResult(BaseModel):
    text: str
    tokens: int  # generated tokens
    tokens_source: str  # "usage" (server) or the tokenizer that counted them
    prompt_tokens: int = 0
    context_uids: list[str] = Field(default_factory=list)
    model: str = ""
    variant: AnswerVariant = Field(default_factory=AnswerVariant)
    confidence: Confidence | None = None  # None: the server returned no logprobs


class PathVerdict(BaseModel):
    path_uid: str
    present: bool
    partial: float  # share of the path's edges the answer reproduces (1.0 when present)
    reason: str = ""
    edges_present: list[bool] = Field(default_factory=list)
    # per edge, the index of the answer sentence (split_sentences) the judge matched to it;
    # empty when the judge does not report spans (the LLM judge)
    edge_sentences: list[int] = Field(default_factory=list)
    # a voting LLM judge (`--judge-votes N`): each valid vote's "present", in vote order
    votes: list[bool] = Field(default_factory=list)


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
    # paths the judge gave no usable verdict on (every vote and the repair request failed):
    # a failed judgement, never read as "absent"; `failures` says why, per path
    failed_paths: list[str] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
    vote_ties: int = 0  # path decisions a tie of the votes resolved (to absent)
    failed_votes: int = 0  # votes that gave no verdict on a path (other votes decided it)


class QuestionResult(BaseModel):
    question: EvalQuestion
    answer_uid: str
    answer: AnswerResult | None  # None when judging a stored answer
    judged: JudgeResult
