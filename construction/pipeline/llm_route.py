"""The LLM route of the build stages, over the provider layer `kg.llm` (any OpenAI-compatible
endpoint, response cache, token ledger). Replies are validated here with the stage's pydantic
schema; an invalid reply is rejected and counted by the caller, never written."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from kg.errors import LLMError
from kg.prompt_files import load_prompt

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


def _usage_pair(usage: Any) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    get = usage.get if isinstance(usage, dict) else lambda k, d=0: getattr(usage, k, d)
    return int(get("prompt_tokens", 0) or 0), int(get("completion_tokens", 0) or 0)


class BuildLLM:
    """Renders `prompts/pipeline/<name>.md`, calls the client, validates the reply."""

    def __init__(self, client: Any, model: str) -> None:
        self.client = client
        self.model = model
        self._in = 0
        self._out = 0

    def tokens(self) -> tuple[int, int]:
        return self._in, self._out

    @staticmethod
    def prompt_hash(name: str) -> str:
        return load_prompt(f"pipeline/{name}").hash

    async def ask(self, name: str, schema: type[M], **slots: object) -> M:
        prompt = load_prompt(f"pipeline/{name}")
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": prompt.render(**slots)},
        ]
        from kg.llm import ContextLengthExceeded, LLMCallError, TruncatedReply

        try:
            reply = await self.client.complete(
                messages, schema=schema, prompt_name=f"pipeline/{name}", prompt_hash=prompt.hash
            )
        except ValidationError as exc:
            raise _rejected(exc) from None
        except ContextLengthExceeded as exc:  # the same prompt fails again: counted apart
            raise RejectedReply("prompt_too_long", str(exc)[:200]) from None
        except TruncatedReply as exc:  # cut at max_tokens before the JSON ended
            raise RejectedReply("truncated", str(exc)[:200]) from None
        except LLMCallError as exc:
            # Not the model's answer: the item stays undone and a rerun retries it.
            raise RejectedReply("call_failed", str(exc)[:200]) from None
        except (ValueError, json.JSONDecodeError) as exc:
            # The client refuses replies that are not JSON of the schema (after one repair).
            text = str(exc)
            kind = (
                "missing_field"
                if "Field required" in text or "missing" in text
                else ("invalid_reply")
            )
            raise RejectedReply(kind, text[:200]) from None
        tin, tout = _usage_pair(getattr(reply, "usage", None))
        self._in += tin
        self._out += tout
        parsed = getattr(reply, "parsed", None)
        if isinstance(parsed, schema):
            return parsed
        try:
            return schema.model_validate_json(_json_part(reply.text))
        except ValidationError as exc:
            raise _rejected(exc) from None

    def map(
        self, items: Iterable[T], work: Callable[[T], Awaitable[None]], concurrency: int = 4
    ) -> None:
        """Run `work` over items with bounded concurrency; each item writes its own result,
        so a killed build keeps what finished."""
        limit = asyncio.Semaphore(concurrency)

        async def one(item: T) -> None:
            async with limit:
                await work(item)

        async def all_items() -> None:
            await asyncio.gather(*(one(i) for i in items))

        runner = getattr(self.client, "run_sync", None)
        if runner is not None:
            runner(all_items)  # the client's HTTP pool belongs to this event loop
        else:
            asyncio.run(all_items())


def _json_part(text: str) -> str:
    """Models sometimes wrap JSON in a code fence or prose: keep the outermost object."""
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


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


def _rejected(exc: ValidationError) -> RejectedReply:
    """A reply that is JSON but not of the schema: a missing field is told apart (counted as
    `missing_field`), anything else is an `invalid_reply`."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    kind = "missing_field" if err["type"] == "missing" else "invalid_reply"
    return RejectedReply(kind, f"{where}: {err['msg']}")
