"""The provider layer against the local test server, through the real `openai` client."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from pydantic import BaseModel

from kg.llm import (
    BudgetExceeded,
    LLMCallError,
    LLMClient,
    LLMConfig,
    LLMRequest,
    Price,
    ResponseCache,
    StructuredOutputError,
)


class Verdict(BaseModel):
    path: str
    present: bool


MSG = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "KIND-A go"}]


def test_plain_reply_usage_and_ledger(llm_server):
    llm_server.add_rule(match="KIND-A", reply="hello there")
    client = LLMClient(llm_server.config())
    reply = client.complete_sync(MSG, prompt_name="t/a", prompt_hash="abc")
    assert reply.text == "hello there"
    assert reply.usage.completion_tokens == 2 and reply.usage.reported
    assert not reply.cached
    rec = client.ledger.records[0]
    assert (rec.prompt_name, rec.prompt_hash, rec.attempts) == ("t/a", "abc", 1)
    assert client.ledger.totals()["calls"] == 1
    body = llm_server.requests[0].body
    assert body["model"] == "test-model" and body["temperature"] == 0.0


def test_provider_prefix_and_key_from_env(llm_server, monkeypatch):
    monkeypatch.setenv("MY_TEST_KEY", "sk-secret-123")
    llm_server.add_rule(reply="ok")
    cfg = llm_server.config(model="openai/gpt-4o-mini", api_key_env="MY_TEST_KEY")
    assert cfg.model_name == "gpt-4o-mini" and cfg.provider == "openai"
    LLMClient(cfg).complete_sync(MSG)
    req = llm_server.requests[0]
    assert req.body["model"] == "gpt-4o-mini"
    assert req.headers["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret-123" not in json.dumps(cfg.public_dict())


def test_missing_key_for_official_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    cfg = LLMConfig(model="openai/gpt-4o", api_key_env="NO_SUCH_KEY_VAR")
    with pytest.raises(ValueError, match="NO_SUCH_KEY_VAR"):
        cfg.api_key()


def test_reasoning_model_parameters(llm_server):
    llm_server.add_rule(reply="thought")
    cfg = llm_server.config(model="gpt-5", reasoning_effort="low", max_tokens=300)
    LLMClient(cfg).complete_sync(MSG)
    body = llm_server.requests[0].body
    assert body["reasoning_effort"] == "low" and body["max_completion_tokens"] == 300
    assert "temperature" not in body and "max_tokens" not in body


def test_retry_after_429_is_honoured(llm_server):
    llm_server.add_rule(match="KIND-A", status=429, headers={"Retry-After": "1"}, times=1)
    llm_server.add_rule(match="KIND-A", reply="finally")
    client = LLMClient(llm_server.config())
    t0 = time.perf_counter()
    reply = client.complete_sync(MSG)
    assert reply.text == "finally"
    assert time.perf_counter() - t0 >= 1.0
    assert [r.status for r in llm_server.requests] == [429, 200]
    assert client.ledger.records[0].attempts == 2


@pytest.mark.parametrize("value", ["soon", "inf", "1e9", "-5", "3600", "Wed, 99 Foo 2026"])
def test_hostile_retry_after_is_a_plain_retry_or_capped(llm_server, value):
    """`soon` used to raise ValueError out of the client; `inf`/`1e9`/`3600` hung the call.
    Now: not a number of seconds or an HTTP date -> a plain backoff retry; a number -> at
    most `retry_after_max_s`."""
    llm_server.add_rule(match="KIND-A", status=503, headers={"Retry-After": value}, times=1)
    llm_server.add_rule(match="KIND-A", reply="after the wait")
    client = LLMClient(llm_server.config(retry_after_max_s=0.2, backoff_max_s=0.1))
    t0 = time.perf_counter()
    assert client.complete_sync(MSG).text == "after the wait"
    assert time.perf_counter() - t0 < 5
    assert [r.status for r in llm_server.requests] == [503, 200]


def test_retry_after_as_an_http_date_is_honoured(llm_server):
    import email.utils

    when = email.utils.formatdate(time.time() + 2, usegmt=True)
    llm_server.add_rule(match="KIND-A", status=429, headers={"Retry-After": when}, times=1)
    llm_server.add_rule(match="KIND-A", reply="later")
    client = LLMClient(llm_server.config())
    t0 = time.perf_counter()
    assert client.complete_sync(MSG).text == "later"
    assert time.perf_counter() - t0 >= 0.5  # the date is rounded to the second


def test_500_retried_then_gives_up(llm_server):
    llm_server.add_rule(match="KIND-A", status=500)
    client = LLMClient(llm_server.config(max_retries=2))
    with pytest.raises(LLMCallError, match="after 3 attempt"):
        client.complete_sync(MSG)
    assert len(llm_server.requests) == 3


def test_timeout_is_retried(llm_server):
    llm_server.add_rule(match="KIND-A", delay=1.5, reply="late", times=1)
    llm_server.add_rule(match="KIND-A", reply="in time")
    client = LLMClient(llm_server.config(timeout_s=0.4))
    assert client.complete_sync(MSG).text == "in time"
    assert client.ledger.records[0].attempts == 2


def test_client_error_is_not_retried(llm_server):
    client = LLMClient(llm_server.config(max_retries=3))
    with pytest.raises(LLMCallError, match="no scripted rule"):
        client.complete_sync(MSG)  # 404: no rule
    assert len(llm_server.requests) == 1


def test_structured_output_with_json_schema(llm_server):
    llm_server.add_rule(match="KIND-A", reply={"path": "P1", "present": True})
    reply = LLMClient(llm_server.config()).complete_sync(MSG, schema=Verdict)
    assert reply.parsed == Verdict(path="P1", present=True)
    rf = llm_server.requests[0].body["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["name"] == "Verdict"


def test_fallback_to_prompt_schema_and_tolerant_parsing(llm_server):
    llm_server.supports_json_schema = False
    llm_server.add_rule(
        match="KIND-A", reply='Sure!\n```json\n{"path": "P2", "present": false}\n```'
    )
    client = LLMClient(llm_server.config())
    reply = client.complete_sync(MSG, schema=Verdict)
    assert reply.parsed == Verdict(path="P2", present=False)
    statuses = [r.status for r in llm_server.requests]
    assert statuses == [400, 200]
    assert "JSON schema" in llm_server.requests[1].text
    client.complete_sync([*MSG[:1], {"role": "user", "content": "KIND-A again"}], schema=Verdict)
    assert [r.status for r in llm_server.requests][2:] == [200]  # remembered: no 400 again


def test_malformed_json_gets_one_repair(llm_server):
    llm_server.add_rule(match="could not be used", reply={"path": "P1", "present": True})
    llm_server.add_rule(match="KIND-A", reply='{"path": "P1", "present": tru')
    client = LLMClient(llm_server.config())
    reply = client.complete_sync(MSG, schema=Verdict)
    assert reply.parsed.present is True
    assert len(llm_server.requests) == 2 and client.ledger.records[0].repaired
    assert reply.usage.completion_tokens > 0


def test_schema_violation_twice_raises(llm_server):
    llm_server.add_rule(match="KIND-A", reply={"path": "P1", "present": "maybe"})
    client = LLMClient(llm_server.config())
    with pytest.raises(StructuredOutputError, match="Verdict"):
        client.complete_sync(MSG, schema=Verdict)
    assert len(llm_server.requests) == 2  # the answer and exactly one repair


def test_check_failure_triggers_repair(llm_server):
    llm_server.add_rule(match="P9 is missing", reply={"path": "P9", "present": False})
    llm_server.add_rule(match="KIND-A", reply={"path": "P1", "present": False})

    def check(v: Verdict) -> None:
        if v.path != "P9":
            raise ValueError("P9 is missing")

    reply = LLMClient(llm_server.config()).complete_sync(MSG, schema=Verdict, check=check)
    assert reply.parsed.path == "P9"


def test_persistent_cache_makes_rerun_free(llm_server, tmp_path):
    llm_server.add_rule(match="KIND-A", reply={"path": "P1", "present": True})
    cfg = llm_server.config(cache=True, cache_path=tmp_path / "c.sqlite")
    first = LLMClient(cfg).complete_sync(MSG, schema=Verdict)
    again_client = LLMClient(cfg)  # a new process would open the same file
    again = again_client.complete_sync(MSG, schema=Verdict)
    assert again.cached and not first.cached and again.parsed == first.parsed
    assert len(llm_server.requests) == 1
    assert again_client.ledger.calls == 0 and again_client.ledger.cached == 1
    # any change in what determines the reply is a different key
    LLMClient(cfg.model_copy(update={"temperature": 0.7})).complete_sync(MSG, schema=Verdict)
    assert len(llm_server.requests) == 2
    assert len(ResponseCache(tmp_path / "c.sqlite")) == 2


def test_no_cache_calls_again(llm_server, tmp_path):
    llm_server.add_rule(reply="x")
    cfg = llm_server.config(cache=False, cache_path=tmp_path / "c.sqlite")
    LLMClient(cfg).complete_sync(MSG)
    LLMClient(cfg).complete_sync(MSG)
    assert len(llm_server.requests) == 2


def test_complete_many_bounded_concurrency(llm_server):
    llm_server.add_rule(reply=lambda body: body["messages"][-1]["content"].upper(), delay=0.2)
    client = LLMClient(llm_server.config(concurrency=4))
    reqs = [LLMRequest(messages=[{"role": "user", "content": f"q{i}"}]) for i in range(12)]
    t0 = time.perf_counter()
    replies = client.run_sync(client.complete_many(reqs))
    elapsed = time.perf_counter() - t0
    assert [r.text for r in replies] == [f"Q{i}" for i in range(12)]
    assert elapsed >= 0.6  # 12 calls / 4 at a time * 0.2 s
    # never more than 4 requests in flight: arrival times come in waves of at most 4
    arrivals = sorted(r.at for r in llm_server.requests)
    for i in range(len(arrivals) - 4):
        assert arrivals[i + 4] - arrivals[i] >= 0.15


def test_budget_and_prices(llm_server):
    llm_server.add_rule(reply="one two three four")
    cfg = llm_server.config(
        prices={"test-model": Price(input_per_mtok=1e6, output_per_mtok=0)}, max_cost=1.0
    )
    client = LLMClient(cfg)
    client.complete_sync(MSG)
    assert client.ledger.cost >= 1.0
    with pytest.raises(BudgetExceeded, match="max-cost"):
        client.complete_sync([{"role": "user", "content": "another"}])
    assert len(llm_server.requests) == 1


def test_missing_usage_is_reported_as_such(llm_server):
    llm_server.add_rule(reply="no usage here", usage=False)
    reply = LLMClient(llm_server.config()).complete_sync(MSG)
    assert reply.usage.reported is False and reply.usage.completion_tokens == 0


def test_client_reusable_across_event_loops(llm_server):
    llm_server.add_rule(reply="ok")
    client = LLMClient(llm_server.config())
    for _ in range(2):
        assert asyncio.run(client.complete(MSG)).text == "ok"
    assert len(llm_server.requests) == 2


def test_shared_limit_across_clients(llm_server):
    llm_server.add_rule(reply="ok", delay=0.2)
    a = LLMClient(llm_server.config(concurrency=8), shared_limit=("both", 2))
    b = LLMClient(llm_server.config(concurrency=8, role="judge"), shared_limit=("both", 2))

    async def main():
        msgs = [[{"role": "user", "content": f"m{i}"}] for i in range(3)]
        await asyncio.gather(*(c.complete(m) for c in (a, b) for m in msgs))

    t0 = time.perf_counter()
    asyncio.run(main())
    assert time.perf_counter() - t0 >= 0.6  # 6 calls, 2 at a time, 0.2 s each
    assert len(llm_server.requests) == 6


def test_raw_broken_body_and_server_latency(llm_server):
    llm_server.latency = 0.05
    llm_server.add_rule(match="KIND-A", raw="this is not json", times=1)
    llm_server.add_rule(match="KIND-A", reply="fine")
    client = LLMClient(llm_server.config(max_retries=1))
    # a 200 whose body is not JSON is not an answer: retried like a transient error (issue 15)
    assert client.complete_sync(MSG).text == "fine"
    assert len(llm_server.requests) == 2


def test_config_providers_and_public_dict(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cases = {
        "openai/gpt-4o": ("gpt-4o", "https://api.openai.com/v1"),
        "ollama/gemma3:27b": ("gemma3:27b", "http://localhost:11434/v1"),
        "openrouter/openai/gpt-4o": ("openai/gpt-4o", "https://openrouter.ai/api/v1"),
        "my-local-model": ("my-local-model", "https://api.openai.com/v1"),
    }
    for model, (name, url) in cases.items():
        cfg = LLMConfig(model=model)
        assert (cfg.model_name, cfg.resolved_base_url) == (name, url)
    assert (
        LLMConfig(model="vllm/x", base_url="http://h:8000/v1/").resolved_base_url
        == "http://h:8000/v1"
    )
    assert LLMConfig(model="ollama/x").api_key() == "not-needed"  # local servers need no key
    assert LLMConfig(model="openai/o3-mini").is_reasoning
    assert not LLMConfig(model="openai/gpt-4o").is_reasoning
    public = LLMConfig(model="openai/gpt-4o", api_key_env="MY_KEY").public_dict()
    assert public["api_key_env"] == "MY_KEY" and "cache_path" not in public
    with pytest.raises(ValueError):
        LLMConfig(model="  ")


def test_other_bad_requests_do_not_disable_json_schema(llm_server):
    llm_server.add_rule(match="KIND-A", status=400, times=1)  # "scripted status 400"
    llm_server.add_rule(match="KIND-A", reply={"path": "P1", "present": True})
    client = LLMClient(llm_server.config())
    with pytest.raises(LLMCallError, match="400"):
        client.complete_sync(MSG, schema=Verdict)
    assert client.complete_sync(MSG, schema=Verdict).parsed.present
    assert all("response_format" in r.body for r in llm_server.requests)


def test_errors_never_carry_the_key(llm_server, monkeypatch):
    monkeypatch.setenv("LEAKY_KEY", "sk-live-abcdef123456")
    llm_server.add_rule(
        status=401,
        raw='{"error": {"message": "Incorrect API key provided: '
        'sk-live-abcdef123456 and sk-proj-****3456"}}',
    )
    client = LLMClient(llm_server.config(api_key_env="LEAKY_KEY"))
    with pytest.raises(LLMCallError) as err:
        client.complete_sync(MSG)
    assert "abcdef123456" not in str(err.value) and "****3456" not in str(err.value)
    assert "[redacted]" in str(err.value)
