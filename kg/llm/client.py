"""The one client every LLM-backed part of the product uses (any OpenAI-compatible server).

Real HTTP through the official `openai` package; retries, concurrency, structured output, cache
and ledger are ours so that they behave the same against OpenAI, vLLM, Ollama or the test server.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import re
import time
import weakref
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from kg.errors import LLMError
from kg.llm.batch.book import BatchBook, BatchLineFailed, BatchPending
from kg.llm.cache import CachedReply, ResponseCache, cache_key
from kg.llm.config import LLMConfig
from kg.llm.fleet import EndpointPool, EndpointState, FleetDown
from kg.llm.ledger import CallRecord, Ledger
from kg.llm.reply_check import answer_text, not_an_answer, usable_cached_text
from kg.llm.structured import (
    StructuredOutputError,
    TruncatedReply,
    json_schema,
    parse_reply,
    response_format,
    schema_instructions,
)
from kg.prompt_files import load_prompt

if TYPE_CHECKING:  # imported where a request is made: `openai` costs 0.65 s of every start
    import openai

T = TypeVar("T")
# Semaphores shared by clients that name the same limit, per event loop.
_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_RETRY_STATUS = {408, 409, 429}
_KEYLIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9*_\-]{6,}")
# How servers say a prompt does not fit: OpenAI and vLLM ("maximum context length"), llama.cpp
# ("exceed context window", code context_length_exceeded; its native server: "exceeds the
# available context size", type exceed_context_size_error), Ollama/LM Studio ("context length").
_CONTEXT = re.compile(
    r"context[_ ]length|context window|maximum context|context[_ ]size|too many tokens",
    re.IGNORECASE,
)


class LLMCallError(LLMError):
    """The server kept failing (after every retry) or refused the request."""


class ContextLengthExceeded(LLMCallError):
    """The prompt (plus the reply's room) does not fit the model's context: this item fails,
    it is not retried (the same prompt would fail again)."""


class ServerUnreachable(LLMCallError):
    """No connection to the server (refused, reset, or the local server process is gone):
    every further call would fail the same way, so runs stop and can be resumed."""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported: bool = True  # False when the server sent no usage block


class LLMReply(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    text: str
    parsed: Any = None
    usage: Usage = Field(default_factory=Usage)
    cached: bool = False
    model: str = ""
    finish_reason: str | None = None  # "stop", "length" (cut by max_tokens), ...
    # per generated token, when asked for (`logprobs=True`) and the server returned them
    logprobs: list[float] | None = None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


class LLMRequest(BaseModel):
    """One entry for `complete_many`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    messages: list[dict[str, Any]]
    schema_: type[BaseModel] | None = Field(default=None, alias="schema")
    prompt_name: str | None = None
    prompt_hash: str | None = None
    check: Callable[[Any], None] | None = None
    schema_json_: dict[str, Any] | None = Field(default=None, alias="schema_json")
    params: dict[str, Any] = Field(default_factory=dict)


_SECONDS = re.compile(r"[0-9]{1,10}(\.[0-9]{1,6})?")


def _retry_after(exc: Exception, cap_s: float) -> float | None:
    """The server's wait, read strictly: `retry-after-ms` or `retry-after` as a number of
    seconds (digits, an optional fraction) or an HTTP date; at most `cap_s`. Anything else
    (`soon`, `inf`, `1e9`, a negative number, a malformed date) is None: a plain retry with
    backoff, never an exception and never an unbounded sleep."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    wait: float | None = None
    ms = (headers.get("retry-after-ms") or "").strip()
    value = (headers.get("retry-after") or "").strip()
    if _SECONDS.fullmatch(ms):
        wait = float(ms) / 1000
    elif _SECONDS.fullmatch(value):
        wait = float(value)
    elif value:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            wait = max(0.0, parsed.timestamp() - time.time())
    if wait is None or wait != wait:  # NaN cannot pass the pattern; kept for safety
        return None
    return min(wait, cap_s)


def _endpoint_fault(exc: BaseException) -> bool:
    """A failure of the endpoint, not of the request (a fleet cools the endpoint down and
    sends the request elsewhere): no connection, a timeout, an overloaded or failing server,
    or one that refuses the key or does not serve the route."""
    import openai

    if isinstance(exc, openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500 or exc.status_code in {401, 403, 404, *_RETRY_STATUS}
    return False


def refused_access(exc: BaseException | None) -> bool:
    """The provider refused the key or the model (401, 403): every other call fails too."""
    import openai

    return isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError)


def _retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500 or exc.status_code in _RETRY_STATUS
    return False


class LLMClient:
    def __init__(
        self,
        config: LLMConfig,
        cache: ResponseCache | None = None,
        shared_limit: tuple[str, int] | None = None,
    ) -> None:
        """`shared_limit=(name, n)`: clients naming the same limit share n slots in flight
        (e.g. responder and judge on one endpoint), instead of `concurrency` each."""
        from kg.llm.local.route import local_config, local_model_spec
        from kg.llm.local.route import shared_limit as limit

        self.local = local_model_spec(config.model) is not None
        if self.local:  # `local/<model>`: the local server, started when it is not running
            config = local_config(config)
            if config.endpoints:  # a fleet of local servers: each takes what its slots take
                config = _local_fleet_caps(config)
            else:
                shared_limit = shared_limit or limit(config)
        self.config = config
        self.shared_limit = shared_limit
        # A fleet: several endpoints for this model (kg.llm.fleet); None = `base_url` alone.
        self.pool = EndpointPool(config.endpoints, config.concurrency) if config.endpoints else None
        self.ledger = Ledger(price=config.price_for(), max_cost=config.max_cost)
        self._cache = (
            cache
            if cache is not None
            else (ResponseCache(config.cache_path) if config.cache else None)
        )
        # Batch mode: the replies of finished batch lines and the lines still to send
        # (set by kg.llm.batch.BatchDriver for the rounds of a batch run).
        self.batch: BatchBook | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._api: openai.AsyncOpenAI | None = None
        self._sem: asyncio.Semaphore | None = None
        # None = not known yet; False after the server rejected a JSON-schema response_format.
        self._json_schema_ok: bool | None = {
            "auto": None,
            "json_schema": True,
            "json_object": True,
            "prompt": False,
        }[config.structured_output]

    # -- per-event-loop state (the HTTP pool and semaphore belong to one loop) ------------
    def _state(self) -> tuple[openai.AsyncOpenAI | None, asyncio.Semaphore]:
        """The HTTP client (None for a fleet: each endpoint has its own) and the semaphore."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._sem is None:
            self._loop = loop
            slots = self.shared_limit[1] if self.shared_limit else self.config.concurrency
            if self.pool is not None:
                slots = self.shared_limit[1] if self.shared_limit else self.pool.capacity
                self.pool.bind(loop)
                for ep in self.pool.states:
                    ep.api = self._openai(ep.url, self._endpoint_key(ep), ep.cap)
            else:
                self._api = self._openai(
                    self.config.resolved_base_url, self.config.api_key(), slots
                )
            if self.shared_limit is not None:
                name, size = self.shared_limit
                self._sem = _SHARED.setdefault(loop, {}).setdefault(name, asyncio.Semaphore(size))
            else:
                self._sem = asyncio.Semaphore(slots)
        return self._api, self._sem

    def _openai(self, base_url: str, key: str, slots: int) -> openai.AsyncOpenAI:
        import openai

        return openai.AsyncOpenAI(
            api_key=key,
            base_url=base_url,
            timeout=self.config.timeout_s,
            max_retries=0,
            http_client=self._http_client(slots),
        )

    def _endpoint_key(self, ep: EndpointState) -> str:
        """A fleet endpoint's key: from its own variable, else the role's."""
        env = ep.endpoint.api_key_env
        if env is None:
            return self.config.api_key()
        key = os.environ.get(env)
        if not key:
            from kg.errors import InputError

            raise InputError(
                f"no API key for the endpoint {ep.url}: set the environment variable {env}"
            )
        return key

    def endpoint_stats(self) -> list[dict[str, Any]]:
        """Per endpoint of a fleet: requests sent, answered, errors, cooldowns and latency
        (p50/p95 of the answered ones); empty without a fleet. Errors are redacted."""
        if self.pool is None:
            return []
        out = self.pool.stats()
        for row in out:
            if row["last_error"]:
                row["last_error"] = self._redact(row["last_error"])
        return out

    def _http_client(self, slots: int) -> Any:
        """The openai package's aiohttp transport when `aiohttp` is installed (its `aiohttp`
        extra; measured about 2.2 instead of 3.2 ms of CPU per request), else its httpx
        default. The pool is sized to what can be in flight: a larger one only costs CPU."""
        import openai

        try:  # the HTTP library the installed openai release is built on
            import httpx2
        except ImportError:  # pragma: no cover - openai releases on plain httpx
            import httpx as httpx2  # type: ignore[no-redef]
        limits = httpx2.Limits(
            max_connections=slots, max_keepalive_connections=slots, keepalive_expiry=30.0
        )
        try:
            import aiohttp  # noqa: F401

            return openai.DefaultAioHttpClient(limits=limits)
        except (ImportError, RuntimeError):
            return openai.DefaultAsyncHttpxClient(limits=limits)

    async def aclose(self) -> None:
        if self._api is not None:
            await self._api.close()
        for ep in self.pool.states if self.pool is not None else []:
            if ep.api is not None:
                await ep.api.close()
                ep.api = None
        self._api, self._loop, self._sem = None, None, None

    def run_sync(self, work: Coroutine[Any, Any, T] | Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Run a coroutine (or a zero-argument coroutine function) from synchronous code."""

        async def main() -> T:
            try:
                return await (work() if callable(work) else work)
            finally:
                await self.aclose()

        return asyncio.run(main())

    def complete_sync(self, messages: list[dict[str, Any]], **kwargs: Any) -> LLMReply:
        return self.run_sync(self.complete(messages, **kwargs))

    # -- parameters ------------------------------------------------------------------------
    def request_params(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        c = self.config
        p: dict[str, Any] = {}
        if c.is_reasoning:
            if c.max_tokens is not None:
                p["max_completion_tokens"] = c.max_tokens
            if c.reasoning_effort is not None:
                p["reasoning_effort"] = c.reasoning_effort
        else:
            if c.temperature is not None:
                p["temperature"] = c.temperature
            if c.max_tokens is not None:
                p["max_tokens"] = c.max_tokens
        p.update(overrides or {})
        return p

    # -- public API -----------------------------------------------------------------------
    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: type[BaseModel] | None = None,
        prompt_name: str | None = None,
        prompt_hash: str | None = None,
        check: Callable[[Any], None] | None = None,
        sample: int | None = None,
        schema_json: dict[str, Any] | None = None,
        **params: Any,
    ) -> LLMReply:
        """One chat completion; `schema` makes `reply.parsed` a validated instance of it.

        `schema_json`: the JSON schema sent for this request instead of `schema`'s own (a
        narrower one, e.g. naming every item the reply must hold, so a server that constrains
        decoding by the schema cannot leave one out); the reply is validated by `schema`.

        `sample`: which of N samples of the same request this is (part of the cache key, so
        N samples are N calls). `logprobs=True` asks for token log-probabilities
        (`reply.logprobs`, None when the server does not return them).

        `check(parsed)` may raise ValueError for semantic problems (e.g. a missing item): that
        counts as a schema violation and triggers the single repair request.
        """
        started = time.perf_counter()
        api_params = self.request_params(params)
        sent_schema = None if schema is None else schema_json or json_schema(schema)
        key = cache_key(
            self.config.model_name,
            self.config.resolved_base_url,
            messages,
            api_params,
            sent_schema,
            sample=sample,
        )
        record = CallRecord(
            model=self.config.model_name,
            role=self.config.role,
            prompt_name=prompt_name,
            prompt_hash=prompt_hash,
        )
        if (
            self._cache is not None
            and (hit := self._cache.get(key)) is not None
            and usable_cached_text(hit.text)
        ):
            try:
                parsed = self._validate(hit.text, schema, check) if schema else None
            except StructuredOutputError:
                parsed = None
                hit = None
            if hit is not None:
                record.cached = True
                record.prompt_tokens, record.completion_tokens = (
                    hit.prompt_tokens,
                    hit.completion_tokens,
                )
                record.truncated = hit.finish_reason == "length"
                self.ledger.add(record)
                return LLMReply(
                    text=hit.text,
                    parsed=parsed,
                    cached=True,
                    model=hit.model,
                    finish_reason=hit.finish_reason,
                    logprobs=hit.logprobs,
                    usage=Usage(
                        prompt_tokens=hit.prompt_tokens,
                        completion_tokens=hit.completion_tokens,
                        reported=hit.usage_reported,
                    ),
                )
        _, sem = self._state()
        async with sem:
            self.ledger.check_budget()
            pending = False
            try:
                reply = await self._complete_uncached(
                    messages, api_params, schema, check, record, schema_json, sample
                )
            except BatchPending:
                pending = True
                raise
            finally:
                record.latency_s = time.perf_counter() - started
                # batch replies that served before (an earlier round) cost nothing again
                record.cached = record.batch and not record.attempts
                if not pending or record.attempts:  # a pending request has cost nothing yet
                    self.ledger.add(record)
        if self._cache is not None:
            self._cache.put(
                key,
                CachedReply(
                    text=reply.text,
                    model=reply.model,
                    prompt_tokens=reply.usage.prompt_tokens,
                    completion_tokens=reply.usage.completion_tokens,
                    usage_reported=reply.usage.reported,
                    finish_reason=reply.finish_reason,
                    logprobs=reply.logprobs,
                ),
            )
        return reply

    async def complete_many(
        self,
        requests: Sequence[LLMRequest],
        *,
        return_exceptions: bool = False,
    ) -> list[Any]:
        """All requests at once, at most `config.concurrency` in flight; results in order."""
        tasks = [
            self.complete(
                r.messages,
                schema=r.schema_,
                prompt_name=r.prompt_name,
                prompt_hash=r.prompt_hash,
                check=r.check,
                schema_json=r.schema_json_,
                **r.params,
            )
            for r in requests
        ]
        return await asyncio.gather(*tasks, return_exceptions=return_exceptions)

    # -- internals ------------------------------------------------------------------------
    def _redact(self, text: str) -> str:
        """Error texts end up in logs and run records: never with a key in them (servers echo
        keys back, e.g. "Incorrect API key provided: sk-...")."""
        envs = [self.config.api_key_env, *(e.api_key_env or "" for e in self.config.endpoints)]
        for key in (
            *(os.environ.get(env) for env in envs if env),
            self.config.api_key_value and self.config.api_key_value.get_secret_value(),
        ):
            if key:
                text = text.replace(key, "[redacted]")
        return _KEYLIKE.sub("[redacted]", text)

    @staticmethod
    def _validate(
        text: str, schema: type[BaseModel], check: Callable[[Any], None] | None
    ) -> BaseModel:
        parsed = parse_reply(text, schema)
        if check is not None:
            try:
                check(parsed)
            except ValueError as exc:
                raise StructuredOutputError(str(exc), text) from exc
        return parsed

    async def _complete_uncached(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        schema: type[BaseModel] | None,
        check: Callable[[Any], None] | None,
        record: CallRecord,
        schema_json: dict[str, Any] | None = None,
        sample: int | None = None,
    ) -> LLMReply:
        sent = messages
        if schema is not None and self._json_schema_ok is False:
            sent = _with_instructions(messages, schema_instructions(schema, schema_json))
        reply = await self._structured_call(sent, params, schema, record, schema_json, sample)
        if schema is None:
            return reply
        try:
            reply.parsed = self._validate(reply.text, schema, check)
            return reply
        except StructuredOutputError as first:
            if reply.truncated:
                raise self._truncated(reply, params, first) from first
            error = str(first)
        # One repair request: show the model its reply and what was wrong with it.
        repair = load_prompt("llm/repair").render(
            error=error[:2000],
            schema=json.dumps(schema_json or json_schema(schema), ensure_ascii=False),
        )
        again = [
            *sent,
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": repair},
        ]
        record.repaired = True
        fixed = await self._structured_call(again, params, schema, record, schema_json, sample)
        fixed.usage.prompt_tokens += reply.usage.prompt_tokens
        fixed.usage.completion_tokens += reply.usage.completion_tokens
        try:
            fixed.parsed = self._validate(fixed.text, schema, check)  # raises when still wrong
        except StructuredOutputError as second:
            if fixed.truncated:
                raise self._truncated(fixed, params, second) from second
            raise
        return fixed

    def _truncated(
        self, reply: LLMReply, params: dict[str, Any], cause: StructuredOutputError
    ) -> TruncatedReply:
        limit = params.get("max_tokens") or params.get("max_completion_tokens")
        return TruncatedReply(
            f"{self.config.role} model {self.config.model_name}: the reply was cut at "
            f"max_tokens={limit} ({reply.usage.completion_tokens} tokens) before its JSON "
            f"ended; raise --max-tokens (local models: KG_LLM_MAX_TOKENS) ({cause})",
            reply.text,
        )

    async def _structured_call(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        schema: type[BaseModel] | None,
        record: CallRecord,
        schema_json: dict[str, Any] | None = None,
        sample: int | None = None,
    ) -> LLMReply:
        if schema is None or self._json_schema_ok is False:
            return await self._call(messages, params, record, sample)
        style = "json_object" if self.config.structured_output == "json_object" else ("json_schema")
        try:
            return await self._call(
                messages,
                {**params, "response_format": response_format(schema, style, schema_json)},
                record,
                sample,
            )
        except LLMCallError as exc:
            import openai

            cause = exc.__cause__
            if (
                self.config.structured_output == "auto"
                and not isinstance(exc, ContextLengthExceeded)
                and isinstance(cause, openai.BadRequestError | openai.UnprocessableEntityError)
                and _about_schema(cause)
            ):
                # The server cannot enforce a JSON schema: describe it in the prompt instead.
                self._json_schema_ok = False
                return await self._call(
                    _with_instructions(messages, schema_instructions(schema, schema_json)),
                    params,
                    record,
                    sample,
                )
            raise

    async def _call(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        record: CallRecord,
        sample: int | None = None,
    ) -> LLMReply:
        charged = True  # a batch reply that served before is not charged again
        if self.batch is not None:  # batch mode: the reply of a batch line, or BatchPending
            resp, text, charged = self._batch_reply(messages, params, record, sample)
        else:
            resp, text = await self._send(messages, params, record)
        choice = resp["choices"][0]  # answer_text checked that it is there
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        record.truncated = record.truncated or finish == "length"
        usage = resp.get("usage") or None
        u = Usage(
            prompt_tokens=(usage or {}).get("prompt_tokens") or 0,
            completion_tokens=(usage or {}).get("completion_tokens") or 0,
            reported=usage is not None,
        )
        if charged:
            record.prompt_tokens += u.prompt_tokens
            record.completion_tokens += u.completion_tokens
        return LLMReply(
            text=str(text),
            usage=u,
            model=resp.get("model") or self.config.model_name,
            finish_reason=finish,
            logprobs=_token_logprobs(choice) if params.get("logprobs") else None,
        )

    def _batch_reply(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        record: CallRecord,
        sample: int | None,
    ) -> tuple[Any, Any, bool]:
        """The reply a finished batch holds for this exact request (its `custom_id` is the
        request's content hash); an unknown request becomes a line of the next batch
        (`BatchPending`). A reply is charged (at the batch price) the first time it serves."""
        assert self.batch is not None
        c = self.config
        body = {"model": c.model_name, "messages": messages, **params}
        custom_id = cache_key(c.model_name, c.resolved_base_url, messages, params, None, sample)
        try:
            resp, first = self.batch.reply(custom_id, body)
        except BatchLineFailed as exc:  # reported like a call that failed every retry
            raise LLMCallError(self._redact(f"{c.role} model {c.model_name}: {exc}")) from exc
        record.batch = True
        if first:
            record.attempts += 1
        try:
            return resp, answer_text(resp), first
        except Exception as exc:
            if not_an_answer(exc):
                raise LLMCallError(
                    self._redact(
                        f"{c.role} model {c.model_name}: batch line {custom_id}: not an "
                        f"answer: {not_an_answer(exc)}"
                    )
                ) from exc
            raise

    async def _send(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        record: CallRecord,
    ) -> tuple[Any, Any]:
        """One chat completion over HTTP (retries, a fleet's endpoints): the response body
        and its answer text."""
        api, _ = self._state()
        c = self.config
        pool = self.pool
        # A fleet may spend a request's retries on each endpoint (one dead endpoint costs no
        # answer); the request itself is counted once, in `record`.
        tries = (c.max_retries + 1) * (len(pool.states) if pool is not None else 1)
        failed_at: EndpointState | None = None  # a fleet: where the last try failed
        for attempt in range(tries):
            last = attempt == tries - 1
            try:
                ep = await pool.acquire(c.max_retries + 1, failed_at) if pool else None
            except FleetDown as down:
                raise ServerUnreachable(
                    self._redact(f"{c.role} model {c.model_name}: {down}")
                ) from None
            record.attempts += 1
            url = ep.url if ep is not None else c.resolved_base_url
            sent_at = time.perf_counter()
            try:
                # The chat-completions route of the official client, without its per-call
                # TypedDict transform of the messages and model construction of the reply
                # (milliseconds of CPU per call: the bottleneck at high concurrency).
                http: Any = ep.api if ep is not None else api
                resp: Any = await http.post(
                    "/chat/completions",
                    cast_to=object,
                    body={"model": c.model_name, "messages": messages, **params},
                )
                text = answer_text(resp)  # empty, choice-less or non-JSON: NotAnAnswer
            except BaseException as exc:
                fault = _endpoint_fault(exc)
                failed_at = ep
                if ep is not None and pool is not None:
                    await pool.release(
                        ep,
                        error=_failure(exc),
                        cool=fault,
                        wait_s=_retry_after(exc, c.retry_after_max_s)
                        if isinstance(exc, Exception)
                        else None,
                    )
                if isinstance(exc, LLMCallError) or not isinstance(exc, Exception):
                    raise
                if not_an_answer(exc):  # retried like a transient error, never returned
                    if last:
                        raise LLMCallError(
                            self._redact(
                                f"{c.role} model {c.model_name}: not an answer: "
                                f"{not_an_answer(exc)} (after {attempt + 1} attempt(s))"
                            )
                        ) from exc
                    await asyncio.sleep(
                        random.uniform(0, min(c.backoff_max_s, c.backoff_base_s * 2**attempt))
                    )
                    continue
                import openai

                if isinstance(exc, openai.BadRequestError) and _CONTEXT.search(str(exc)):
                    raise ContextLengthExceeded(
                        self._redact(
                            f"{c.role} model {c.model_name} at {url}: the prompt "
                            f"does not fit the model's context: {exc}; shorten the input or use "
                            "a longer context (local models: KG_LLM_N_CTX)"
                        )
                    ) from exc
                if ep is not None and pool is not None and fault and not last:
                    # The endpoint is cooling down: the request goes to another one, now
                    # when one is free, else when a cooldown ends (the pool waits).
                    continue
                gone = self._server_gone(exc) if ep is None else None  # a fleet: cooled down
                if gone or not _retryable(exc) or last:
                    unreachable = gone or _connection_lost(exc)
                    kind = ServerUnreachable if unreachable else LLMCallError
                    raise kind(
                        self._redact(
                            f"{c.role} model {c.model_name} at {url}: "
                            f"{type(exc).__name__}: {exc} (after {attempt + 1} attempt(s))"
                            + (f"; {gone}" if gone else "")
                        )
                    ) from exc
                backoff = min(c.backoff_max_s, c.backoff_base_s * 2**attempt)
                wait = _retry_after(exc, c.retry_after_max_s)
                delay = (
                    wait * (1 + 0.1 * random.random())
                    if wait is not None
                    else random.uniform(0, backoff)
                )  # full jitter
                await asyncio.sleep(delay)
            else:  # answered (outside the `try`: the slot is given back exactly once)
                if ep is not None and pool is not None:
                    await pool.release(ep, latency_s=time.perf_counter() - sent_at)
                break
        return resp, text

    def _server_gone(self, exc: Exception) -> str | None:
        """For `local/` models: a refused connection while the server process is dead or
        stopped is final (no point in retrying); the message names the fix."""
        if not self.local or not _connection_lost(exc):
            return None
        from urllib.parse import urlsplit

        from kg.llm.local import get_local_settings, server

        st = server.status(get_local_settings(port=urlsplit(self.config.resolved_base_url).port))
        if st.state in (server.State.CRASHED, server.State.STOPPED):
            return (
                f"the local model server is {st.state.value} (log: {st.home.log}); "
                "`kg llm status` shows why, `kg llm up` starts it again"
            )
        return None


def _local_fleet_caps(config: LLMConfig) -> LLMConfig:
    """A fleet of `kg llm up` servers: an endpoint without `max_in_flight` takes as many
    requests as its server has slots (more would wait in its queue and run into timeouts)."""
    from urllib.parse import urlsplit

    from kg.llm.local import get_local_settings, server

    def slots(url: str) -> int:
        settings = get_local_settings(port=urlsplit(url).port)
        info = server.status(settings).info
        return info.parallel if info is not None else settings.parallel

    endpoints = [
        e if e.max_in_flight else e.model_copy(update={"max_in_flight": slots(e.base_url)})
        for e in config.endpoints
    ]
    return config.model_copy(update={"endpoints": endpoints})


# Transport errors that mean "nobody answers at that address" (the openai package reports a
# refused connection over aiohttp as a connect *timeout*, so the cause chain decides).
_LOST = {"ClientConnectorError", "ServerDisconnectedError", "ConnectError", "RemoteProtocolError"}


def _connection_lost(exc: BaseException) -> bool:
    import openai

    if not isinstance(exc, openai.APIConnectionError):
        return False
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            break
        if isinstance(seen, ConnectionError) or type(seen).__name__ in _LOST:
            return True
        seen = seen.__cause__ or seen.__context__
    return not isinstance(exc, openai.APITimeoutError)


def _failure(exc: BaseException) -> str:
    """A fleet endpoint's failure in words (aiohttp reports a refused connection as a
    connect timeout: said as what it is)."""
    text = f"{type(exc).__name__}: {exc}"
    return f"no connection ({text})" if _connection_lost(exc) else text


def _token_logprobs(choice: Any) -> list[float] | None:
    """The chat-completions logprobs block (`choice.logprobs.content[*].logprob`), or None
    when the server left it out or sent something else."""
    block = choice.get("logprobs") if isinstance(choice, dict) else None
    content = block.get("content") if isinstance(block, dict) else None
    if not isinstance(content, list):
        return None
    out = [t.get("logprob") for t in content if isinstance(t, dict)]
    values = [float(v) for v in out if isinstance(v, int | float)]
    return values or None


def _about_schema(exc: openai.APIStatusError) -> bool:
    """A refusal that names the structured-output request (FastAPI servers put it in the
    422 body's `detail`, which the exception text leaves out)."""
    text = f"{exc} {json.dumps(exc.body, default=str)}".lower()
    return any(w in text for w in ("response_format", "json_schema", "schema", "structured"))


def _with_instructions(messages: list[dict[str, Any]], extra: str) -> list[dict[str, Any]]:
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            m["content"] = f"{m['content']}\n\n{extra}"
            return out
    return [*out, {"role": "user", "content": extra}]
