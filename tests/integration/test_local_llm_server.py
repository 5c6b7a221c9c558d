"""The real local model (SmolLM2-135M on llama.cpp's server, xllamacpp) through the product's
client: plain replies, replies cut by max_tokens, a prompt longer than the context, JSON-schema
constrained output, the `local/` route, and a server killed under the client."""

from __future__ import annotations

import os
import signal
import time

import pytest
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from kg.cli.main import app
from kg.llm import ContextLengthExceeded, LLMClient, LLMConfig, ServerUnreachable
from kg.llm.local import get_local_settings, server

pytestmark = pytest.mark.local_llm
ASK = [{"role": "user", "content": "Name one planet of the solar system."}]


class Planet(BaseModel):
    name: str = Field(max_length=40)
    has_rings: bool


def _client(**kw) -> LLMClient:
    return LLMClient(LLMConfig(model="local/smollm2-135m", cache=False, **kw))


def test_cli_status_shows_the_running_model(local_llm):
    result = CliRunner().invoke(app, ["llm", "status"])
    assert result.exit_code == 0, result.output
    assert "running" in result.output and "smollm2-135m" in result.output
    up = CliRunner().invoke(app, ["llm", "up"])
    assert up.exit_code == 0 and "already running" in up.output


def test_local_route_answers_with_usage(local_llm):
    client = _client()
    assert client.config.resolved_base_url == local_llm.base_url
    reply = client.complete_sync(ASK)
    assert reply.text.strip() and reply.finish_reason in ("stop", "length")
    assert reply.usage.reported and reply.usage.prompt_tokens > 5
    assert reply.usage.completion_tokens > 0
    assert reply.model == "smollm2-135m"


def test_max_tokens_cut_is_detected(local_llm):
    client = _client(max_tokens=4)
    reply = client.complete_sync(
        [{"role": "user", "content": "Write a long story about a dragon and a river."}]
    )
    assert reply.truncated and reply.usage.completion_tokens <= 4
    assert client.ledger.truncated == 1


def test_prompt_longer_than_context_fails_fast_and_the_server_lives_on(local_llm):
    client = _client()
    long_prompt = [{"role": "user", "content": "river stone " * (local_llm.n_ctx + 500)}]
    t0 = time.monotonic()
    with pytest.raises(ContextLengthExceeded) as info:
        client.complete_sync(long_prompt)
    assert time.monotonic() - t0 < 60  # tokenizing only: no generation, no hang
    assert "KG_LLM_N_CTX" in str(info.value)
    assert client.ledger.records[0].attempts == 1  # not retried
    assert _client(max_tokens=8).complete_sync(ASK).text  # the next item is served


def test_structured_output_is_constrained_by_the_schema(local_llm):
    client = _client(max_tokens=64)
    reply = client.complete_sync(
        [
            {
                "role": "user",
                "content": "Give a planet as JSON with its name and whether it has rings.",
            }
        ],
        schema=Planet,
    )
    assert isinstance(reply.parsed, Planet) and reply.parsed.name
    assert client.config.structured_output == "json_schema"


def test_killed_server_is_detected_and_restarted(local_llm, tmp_path):
    other = get_local_settings(port=local_llm.port + 1, server_home=tmp_path / "srv")
    st, secs = server.start(other)
    assert st.state is server.State.RUNNING and secs > 0
    os.kill(st.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while server.status(other).state is not server.State.CRASHED:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert server.log_tail(server.home_of(other))  # what it printed before dying
    client = LLMClient(
        LLMConfig(model="local/smollm2-135m", base_url=other.base_url, cache=False, max_retries=3)
    )
    t0 = time.monotonic()
    with pytest.raises(ServerUnreachable) as info:
        client.complete_sync(ASK)
    assert time.monotonic() - t0 < 10  # no retries against a dead process
    assert "kg llm up" in str(info.value)
    again, _ = server.start(other)  # up again after a crash
    assert again.state is server.State.RUNNING and again.pid != st.pid
    assert server.stop(other) and server.status(other).state is server.State.STOPPED
