"""What a run is: responder, judge, setting, strategy, ground truth, selection — and its id."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from evaluation.judges import registry
from evaluation.models import GroundTruth, Setting, Strategy
from kg.llm import LLMConfig
from kg.llm.config import RESULT_FIELDS


def llm_identity(cfg: LLMConfig | None) -> dict[str, Any] | None:
    if cfg is None:
        return None
    d = cfg.public_dict()
    return {k: d[k] for k in RESULT_FIELDS}


class RunSpec(BaseModel):
    kind: Literal["eval", "judge"] = "eval"
    run_id: str | None = None
    source_run: str | None = None  # judge runs: the run whose stored answers are judged
    responder: str = "llm"  # "llm" or an offline baseline (cover-all, target-only, empty)
    responder_llm: LLMConfig | None = None
    judge: str = registry.DEFAULT_JUDGE  # a registered judge (`llm`: a model, see judge_llm)
    judge_llm: LLMConfig | None = None
    # LLM judge: samples per checklist call (majority; self-agreement reported) and whether
    # one call judges all of an answer's paths ("answer") or one path ("path")
    judge_votes: int = Field(default=1, ge=1)
    judge_granularity: Literal["answer", "path"] = "answer"
    setting: Setting = Setting.oracle
    strategy: Strategy = Strategy.plain
    gt: GroundTruth = GroundTruth.evidence
    noise: int = 5
    top_k: int | None = None
    seed: int = 0
    relevancy_n: int = 3
    path_threshold: float = 0.8
    claim_threshold: float = 0.7
    domains: list[str] | None = None
    hops: list[int] | None = None
    limit: int | None = None
    skip_invalid: bool = False
    samples: int = Field(default=1, ge=1, description="answers per question (FRS)")
    contexts: int = Field(default=0, ge=0, description="C3 context perturbations per question")
    formulations: list[str] | None = None  # PROOF formulation names (original first)
    decoders: list[dict[str, float | int | str]] | None = None  # PROOF decoder grid points
    subset_percent: float = Field(default=10.0, gt=0, le=100, description="decoder-grid subset")
    batch_size: int = Field(default=50, ge=1)
    workers: int | None = None  # questions in flight; default: responder + judge concurrency
    shared_concurrency: int | None = Field(
        default=None, ge=1, description="one limit on requests in flight for all roles together"
    )

    @field_validator("judge")
    @classmethod
    def _registered(cls, name: str) -> str:
        registry.entry(name)  # an unknown name: EvalInputError listing the registered ones
        return name

    def judge_settings(self) -> dict[str, Any]:
        """What the judge reads (through its registered options model)."""
        return {
            "path_threshold": self.path_threshold,
            "claim_threshold": self.claim_threshold,
            "relevancy_n": self.relevancy_n,
            "seed": self.seed,
            "votes": self.judge_votes,
            "granularity": self.judge_granularity,
        }

    def identity(self, prompt_hashes: dict[str, str]) -> dict[str, Any]:
        """Everything that determines the results; equal identity = the same run."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "source_run": self.source_run,
            "responder": self.responder if self.kind == "eval" else None,
            "responder_llm": llm_identity(self.responder_llm) if self.kind == "eval" else None,
            "judge": self.judge,
            "judge_llm": llm_identity(self.judge_llm),
            "setting": self.setting.value if self.kind == "eval" else None,
            "strategy": self.strategy.value if self.kind == "eval" else None,
            "gt": self.gt.value,
            "noise": self.noise,
            "top_k": self.top_k,
            "seed": self.seed,
            "relevancy_n": self.relevancy_n if self.judge == "llm" else None,
            "thresholds": (
                [self.path_threshold, self.claim_threshold]
                if self.judge == "embedding"
                else [self.claim_threshold]
                if self.judge == "edge-evidence"
                else None
            ),
            "domains": self.domains,
            "hops": self.hops,
            "limit": self.limit,
            "prompt_hashes": prompt_hashes,
        }
        # absent for one sample: the ids of runs without samples stay what they were
        if self.samples != 1:
            out["samples"] = self.samples
        if self.judge == "llm" and self.judge_votes != 1:
            out["judge_votes"] = self.judge_votes
        if self.judge == "llm" and self.judge_granularity != "answer":
            out["judge_granularity"] = self.judge_granularity
        if self.contexts:
            out["contexts"] = self.contexts
        if self.formulations:
            out["formulations"] = self.formulations
        if self.decoders:
            out["decoders"] = self.decoders
            out["subset_percent"] = self.subset_percent
        return out

    def default_run_id(self, prompt_hashes: dict[str, str]) -> str:
        blob = json.dumps(self.identity(prompt_hashes), sort_keys=True, default=str)
        prefix = "judge" if self.kind == "judge" else "run"
        return f"{prefix}-{hashlib.sha256(blob.encode()).hexdigest()[:12]}"
