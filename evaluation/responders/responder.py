"""Responders: the model under test, and three offline baselines that need no model.

Offline baselines (honest reference points, named as such in reports):
- cover-all: states every valid path (targets and distractors) with its evidence, i.e. the
  answer that never leaves anything out (the paper's "cover-all" row);
- target-only: states only the target paths (a perfectly aligned answer);
- empty: says nothing (|A| = 0 for every question).
"""

from __future__ import annotations

from typing import Any, Protocol

from evaluation.models import (
    AnswerResult,
    AnswerVariant,
    EvalPath,
    EvalQuestion,
    Fact,
    Strategy,
)
from evaluation.profiles.confidence import summarise
from evaluation.responders.prompting import answer_messages, responder_prompt_names
from evaluation.responders.tokens import REGEX_TOKENIZER, count_tokens
from kg.errors import InputError
from kg.llm import LLMClient

OFFLINE_RESPONDERS = ("cover-all", "target-only", "empty")


class Responder(Protocol):
    name: str
    offline: bool

    def prompt_names(self) -> list[str]: ...

    def planned_request(
        self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant
    ) -> str | None: ...

    async def answer(
        self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant | None = None
    ) -> AnswerResult: ...


def _state_path(p: EvalPath) -> str:
    sentences = []
    for (a, label, b), evidence in zip(p.edges(), p.edge_evidence(), strict=True):
        sentences.append(evidence.strip() or f"{a} {label.lower().replace('_', ' ')} {b}.")
    return " ".join(dict.fromkeys(sentences))


class OfflineResponder:
    offline = True

    def __init__(self, kind: str) -> None:
        if kind not in OFFLINE_RESPONDERS:
            raise InputError(f"unknown offline responder {kind!r}: one of {OFFLINE_RESPONDERS}")
        self.kind = kind
        self.name = f"baseline:{kind}"

    def prompt_names(self) -> list[str]:
        return []

    def planned_request(
        self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant
    ) -> str | None:
        return None  # no model is asked

    async def answer(
        self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant | None = None
    ) -> AnswerResult:
        if self.kind == "empty":
            paths: list[EvalPath] = []
        elif self.kind == "target-only":
            paths = q.targets
        else:
            paths = q.paths
        text = "\n".join(_state_path(p) for p in paths)
        return AnswerResult(
            text=text,
            tokens=count_tokens(text),
            tokens_source=REGEX_TOKENIZER,
            context_uids=[f.uid for f in context],
            model=self.name,
            variant=variant or AnswerVariant(),
        )


class LLMResponder:
    offline = False

    def __init__(
        self, client: LLMClient, strategy: Strategy, samples: int = 1, seed: int = 0
    ) -> None:
        """`samples > 1`: every question is answered `samples` times, each sample with its own
        seed (`seed + sample`) and with token logprobs asked for (the sample's confidence)."""
        self.client = client
        self.strategy = strategy
        self.samples, self.seed = samples, seed
        self.name = f"llm:{client.config.model_name}"

    def prompt_names(self) -> list[str]:
        return responder_prompt_names(self.strategy)

    def _messages(self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant) -> list[dict]:
        question = variant.question_text or q.text  # a PROOF formulation, else the stored text
        return answer_messages(question, context, self.strategy, variant.preamble)

    def planned_request(
        self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant
    ) -> str | None:
        """The text of the messages `answer` sends (`kg eval plan` sizes it)."""
        return "\n".join(m["content"] for m in self._messages(q, context, variant))

    def decoder(self, sample: int) -> dict[str, float | int | str] | None:
        """The sampling parameters sent beside the config's (None for an unsampled run)."""
        return {"seed": self.seed + sample} if self.samples > 1 else None

    async def answer(
        self, q: EvalQuestion, context: list[Fact], variant: AnswerVariant | None = None
    ) -> AnswerResult:
        variant = variant or AnswerVariant()
        messages = self._messages(q, context, variant)
        sent: dict[str, Any] = {}  # unsampled runs send exactly the request they always sent
        if self.samples > 1:
            sent = dict(self.decoder(variant.sample) or {})
        if variant.decoder_point is not None:  # a decoder grid point: its settings win
            sent.update(variant.decoder or {})
        # top_logprobs too: some llama.cpp-based servers return no logprobs without it
        extra: dict[str, Any] = (
            {**sent, "logprobs": True, "top_logprobs": 1} if self.samples > 1 else dict(sent)
        )
        if sent:
            recorded = {
                k: v
                for k, v in self.client.request_params().items()
                if k in ("temperature", "top_p") and isinstance(v, int | float | str)
            }
            variant = variant.model_copy(update={"decoder": {**recorded, **sent}})
        reply = await self.client.complete(
            messages,
            prompt_name="eval/answer_user",
            sample=variant.sample if self.samples > 1 else None,
            **extra,
        )
        if reply.usage.reported:
            tokens, source = reply.usage.completion_tokens, "usage"
        else:
            tokens, source = count_tokens(reply.text), REGEX_TOKENIZER
        return AnswerResult(
            text=reply.text,
            tokens=tokens,
            tokens_source=source,
            prompt_tokens=reply.usage.prompt_tokens,
            context_uids=[f.uid for f in context],
            model=reply.model,
            variant=variant,
            confidence=summarise(reply.logprobs),
        )


def make_responder(
    name: str, client: LLMClient | None, strategy: Strategy, samples: int = 1, seed: int = 0
) -> Responder:
    if name in OFFLINE_RESPONDERS:
        return OfflineResponder(name)
    if client is None:
        raise InputError("an LLM responder needs --model")
    return LLMResponder(client, strategy, samples=samples, seed=seed)
