"""The LLM route of the build stages: a thin adapter over the provider layer `kg.llm` (any
OpenAI-compatible endpoint, its concurrency limit, retries, structured output with one repair
request, response cache, token ledger). It renders the stage's prompt, asks the client for the
stage's pydantic schema and turns what the client refuses into a `RejectedReply` with a short
reason the stage counts; a rejected reply is never written."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from kg.errors import LLMError
from kg.prompt_files import load_prompt

if TYPE_CHECKING:
    from kg.llm import LLMClient
    from kg.llm.batch.driver import BatchDriver

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

SYSTEM = (
    "You are a careful knowledge engineer building a benchmark from textbook text. "
    "Reply with one JSON object that matches the requested schema, nothing else."
)


class RejectedReply(LLMError, ValueError):
    """A reply that failed validation; `reason` is a short counter key."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


class BuildLLM:
    """Renders `prompts/pipeline/<name>.md` and asks the client for the stage's schema. The
    tokens of every reply it returns (cached ones included) are counted for the stage reports."""

    def __init__(self, client: LLMClient, model: str) -> None:
        self.client = client
        self.model = model
        # `--batch`: the build's batch driver (the stages' items run in rounds: Stage.each_item)
        self.batches: BatchDriver | None = None
        self._in = 0
        self._out = 0

    def tokens(self) -> tuple[int, int]:
        return self._in, self._out

    @staticmethod
    def prompt_hash(name: str) -> str:
        return load_prompt(f"pipeline/{name}").hash

    @staticmethod
    def messages(name: str, **slots: object) -> list[dict[str, str]]:
        """The messages `ask` sends for these slots (and `kg build --plan` counts)."""
        return [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": load_prompt(f"pipeline/{name}").render(**slots)},
        ]

    async def ask(self, name: str, schema: type[M], **slots: object) -> M:
        from kg.llm import ContextLengthExceeded, LLMCallError, TruncatedReply

        try:
            reply = await self.client.complete(
                self.messages(name, **slots),
                schema=schema,
                prompt_name=f"pipeline/{name}",
                prompt_hash=self.prompt_hash(name),
            )
        except ContextLengthExceeded as exc:  # the same prompt fails again: counted apart
            raise RejectedReply("prompt_too_long", str(exc)[:200]) from None
        except TruncatedReply as exc:  # cut at max_tokens before the JSON ended
            raise RejectedReply("truncated", str(exc)[:200]) from None
        except LLMCallError as exc:
            # Not the model's answer: the item stays undone and a rerun retries it.
            raise RejectedReply("call_failed", str(exc)[:200]) from None
        except ValueError as exc:
            # The client refuses replies that are not JSON of the schema (after one repair).
            text = str(exc)
            kind = "missing_field" if "Field required" in text or "missing" in text else None
            raise RejectedReply(kind or "invalid_reply", text[:200]) from None
        self._in += reply.usage.prompt_tokens
        self._out += reply.usage.completion_tokens
        if not isinstance(reply.parsed, schema):
            raise RejectedReply("invalid_reply", f"no {schema.__name__} in the reply")
        return reply.parsed

    def map(self, items: Iterable[T], work: Callable[[T], Awaitable[None]]) -> None:
        """Run `work` over every item at once: the client holds at most its `concurrency`
        calls in flight. Each item writes its own result, so a killed build keeps what
        finished."""

        async def all_items() -> None:
            await asyncio.gather(*(work(i) for i in items))

        self.client.run_sync(all_items)  # the client's HTTP pool belongs to this event loop


def make_build_llm(
    model: str | None = None, base_url: str | None = None, config: Any = None, **options: Any
) -> BuildLLM | None:
    """The builder-role client of the provider layer, or None for the offline route."""
    from kg.llm import LLMClient, LLMConfig

    if config is None:
        if not model:
            return None
        fields: dict[str, Any] = {"model": model, "role": "builder", **options}
        if base_url:
            fields["base_url"] = base_url
        config = LLMConfig(**fields)
    return BuildLLM(LLMClient(config), config.model)
