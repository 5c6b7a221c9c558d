"""The one provider layer for every LLM-backed part of PerspectiveKG.

Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, OpenRouter, the local test
server) through the official `openai` package, real HTTP. Stable API:

    from kg.llm import LLMConfig, LLMClient, LLMRequest

    cfg = LLMConfig(model="openai/gpt-4o", role="judge", concurrency=16)
    #   model        "provider/name" (prefix optional: openai, openrouter, vllm, ollama, lmstudio
    #                are stripped and imply a default base URL) or a bare name sent as is
    #   base_url     e.g. "http://localhost:8000/v1" (overrides the provider default)
    #   api_key_env  env var holding the key (default OPENAI_API_KEY); the key is read at call
    #                time, never stored, logged or written to a run record
    #   role         "responder" | "judge" | "builder"
    #   concurrency, max_retries, timeout_s, backoff_base_s, backoff_max_s
    #   cache (bool), cache_path (SQLite, default <user cache dir>/perspectivekg/llm-cache.sqlite)
    #   temperature, max_tokens, reasoning_effort, reasoning (None = guess from the model name:
    #                reasoning models get reasoning_effort + max_completion_tokens, no temperature)
    #   structured_output "auto" | "json_schema" | "prompt"; prices {model: Price}; max_cost ($)
    client = LLMClient(cfg)

    reply = await client.complete(messages, schema=MyModel, prompt_name="eval/judge_paths",
                                  prompt_hash=prompt.hash, check=None, **params)
    #   schema_json: a narrower JSON schema sent for this one request (e.g. naming every item
    #   the reply must hold); the reply is still validated by `schema`
    reply.text, reply.parsed (a validated MyModel or None), reply.usage.prompt_tokens,
    reply.usage.completion_tokens, reply.usage.reported, reply.cached, reply.model

    replies = await client.complete_many([LLMRequest(messages=..., schema=MyModel), ...])
    reply = client.run_sync(client.complete(messages))       # from synchronous (CLI) code
    client.ledger.records / .calls / .cached / .prompt_tokens / .completion_tokens / .cost
    client.ledger.totals()                                   # dict for run records

Behaviour: bounded concurrency (asyncio.Semaphore of `concurrency`); retries with exponential
backoff and full jitter on 429, 5xx, 408/409, timeouts and connection errors, waiting at least
`Retry-After` (or `retry-after-ms`) when the server sends it; structured output via a JSON-schema
`response_format` where the server accepts it, else the schema goes into the prompt and the reply
is parsed tolerantly (code fences, chatter); a reply that is not valid JSON, violates the schema
or fails `check(parsed)` (raise ValueError) gets exactly one repair request, then
`StructuredOutputError`; a persistent content-addressed SQLite cache (key = model, base URL,
messages, parameters, schema) so that a rerun costs zero calls (`cache=False` = `--no-cache`);
`BudgetExceeded` once `max_cost` is spent; `LLMCallError` when retries run out.
Real servers: a prompt longer than the context raises `ContextLengthExceeded` (not retried); a
reply cut by max_tokens has `reply.truncated` (finish_reason "length", counted in
`ledger.truncated`), and a cut structured reply raises `TruncatedReply` without a repair; a
lost connection raises `ServerUnreachable` (runs stop, resumable). `local/<model>` (e.g.
`local/smollm2-135m`) is served by `kg llm up` (kg.llm.local), started on first use.

A fleet: `LLMConfig(endpoints=[Endpoint(base_url=..., api_key_env=..., weight=...,
max_in_flight=...), ...])` (`llm_config(base_url=[...])` or `llm_config(fleet=path)`, the file
read by `load_fleet`): one model on several endpoints; requests go to the endpoint with the
fewest in flight, a failing endpoint is cooled down and its requests retried elsewhere;
`client.endpoint_stats()` per endpoint (docs/fleet.md).

Tests use the local OpenAI-compatible server in tests/llm_server.py through the pytest fixture
`llm_server` (tests/llm_fixtures.py).
"""

from kg.llm.cache import ResponseCache, cache_key
from kg.llm.client import (
    ContextLengthExceeded,
    LLMCallError,
    LLMClient,
    LLMReply,
    LLMRequest,
    ServerUnreachable,
    Usage,
)
from kg.llm.config import PROVIDER_BASE_URLS, LLMConfig, Price, Role, llm_config, load_prices
from kg.llm.fleet_file import Endpoint, load_fleet
from kg.llm.ledger import BudgetExceeded, CallRecord, Ledger
from kg.llm.structured import StructuredOutputError, TruncatedReply, parse_reply

__all__ = [
    "PROVIDER_BASE_URLS",
    "BudgetExceeded",
    "CallRecord",
    "ContextLengthExceeded",
    "Endpoint",
    "LLMCallError",
    "LLMClient",
    "LLMConfig",
    "LLMReply",
    "LLMRequest",
    "Ledger",
    "Price",
    "ResponseCache",
    "Role",
    "ServerUnreachable",
    "StructuredOutputError",
    "TruncatedReply",
    "Usage",
    "cache_key",
    "llm_config",
    "load_fleet",
    "load_prices",
    "parse_reply",
]
