"""What real servers do, scripted over real HTTP: prompts longer than the context, replies cut
by max_tokens, llama.cpp's JSON-schema format, a server that is gone."""

from __future__ import annotations

import json
import socket

import pytest
from pydantic import BaseModel

from kg.llm import (
    ContextLengthExceeded,
    LLMCallError,
    LLMClient,
    ServerUnreachable,
    StructuredOutputError,
    TruncatedReply,
)

MSG = [{"role": "user", "content": "KIND-CTX go"}]
# The bodies servers send for a prompt longer than their context: OpenAI-style (OpenAI, vLLM,
# llama-cpp-python) and llama.cpp's native server (as served by xllamacpp).
OPENAI_CTX_ERROR = json.dumps(
    {
        "error": {
            "message": "This model's maximum context length is 2048 tokens. However, you requested "
            "2300 tokens (2300 in the messages, None in the completion). Please reduce the "
            "length of the messages or completion.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
)
LLAMA_CTX_ERROR = json.dumps(
    {
        "error": {
            "code": 400,
            "message": "request (9223 tokens) exceeds the available context size (4096 tokens), "
            "try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 9223,
            "n_ctx": 4096,
        }
    }
)


class Pick(BaseModel):
    answer: str
    score: int


@pytest.mark.parametrize("body", [OPENAI_CTX_ERROR, LLAMA_CTX_ERROR], ids=["openai", "llama.cpp"])
def test_prompt_longer_than_context_fails_once_without_retry(llm_server, body):
    llm_server.add_rule(match="KIND-CTX", status=400, raw=body)
    client = LLMClient(llm_server.config(max_retries=4))
    with pytest.raises(ContextLengthExceeded) as info:
        client.complete_sync(MSG)
    assert isinstance(info.value, LLMCallError)  # callers that count call failures count it
    assert "does not fit the model's context" in str(info.value)
    assert "KG_LLM_N_CTX" in str(info.value)
    assert llm_server.calls == 1  # not retried


def test_context_error_with_a_schema_is_not_mistaken_for_missing_schema_support(llm_server):
    llm_server.add_rule(match="KIND-CTX", status=400, raw=LLAMA_CTX_ERROR)
    client = LLMClient(llm_server.config())
    with pytest.raises(ContextLengthExceeded):
        client.complete_sync(MSG, schema=Pick)
    assert llm_server.calls == 1  # no fallback to a prompt-described schema


def test_reply_cut_by_max_tokens_is_detected_and_counted(llm_server):
    llm_server.add_rule(
        match="KIND-CTX", reply="a long rambling answer that goes on", finish_reason="length"
    )
    client = LLMClient(llm_server.config(max_tokens=7))
    reply = client.complete_sync(MSG)
    assert reply.truncated and reply.finish_reason == "length"
    assert reply.text.startswith("a long rambling")
    assert client.ledger.truncated == 1 and client.ledger.totals()["truncated"] == 1
    assert llm_server.requests[0].body["max_tokens"] == 7


def test_complete_reply_is_not_truncated(llm_server):
    llm_server.add_rule(match="KIND-CTX", reply="short")
    client = LLMClient(llm_server.config())
    reply = client.complete_sync(MSG)
    assert not reply.truncated and reply.finish_reason == "stop"
    assert client.ledger.truncated == 0


def test_cut_json_fails_as_truncated_without_a_repair_request(llm_server):
    llm_server.add_rule(
        match="KIND-CTX", reply='{"answer": "the first concept shap', finish_reason="length"
    )
    client = LLMClient(llm_server.config(max_tokens=12))
    with pytest.raises(TruncatedReply) as info:
        client.complete_sync(MSG, schema=Pick)
    assert isinstance(info.value, StructuredOutputError)
    assert "max_tokens=12" in str(info.value)
    assert llm_server.calls == 1  # a repair would be cut the same way


def test_cut_reply_whose_json_is_complete_is_kept(llm_server):
    llm_server.add_rule(
        match="KIND-CTX", reply='{"answer": "yes", "score": 3}', finish_reason="length"
    )
    client = LLMClient(llm_server.config())
    reply = client.complete_sync(MSG, schema=Pick)
    assert reply.parsed == Pick(answer="yes", score=3)
    assert reply.truncated and client.ledger.truncated == 1


def test_truncation_survives_the_cache(llm_server, tmp_path):
    llm_server.add_rule(match="KIND-CTX", reply="cut here", finish_reason="length")
    cfg = llm_server.config(cache=True, cache_path=tmp_path / "c.sqlite")
    LLMClient(cfg).complete_sync(MSG)
    again = LLMClient(cfg)
    reply = again.complete_sync(MSG)
    assert reply.cached and reply.truncated and again.ledger.truncated == 1
    assert llm_server.calls == 1


def test_json_object_style_sends_llama_cpp_schema_format(llm_server):
    llm_server.add_rule(match="KIND-CTX", reply={"answer": "a", "score": 1})
    client = LLMClient(llm_server.config(structured_output="json_object"))
    reply = client.complete_sync(MSG, schema=Pick)
    assert reply.parsed == Pick(answer="a", score=1)
    rf = llm_server.requests[0].body["response_format"]
    assert rf["type"] == "json_object"
    assert rf["schema"]["properties"].keys() == {"answer", "score"}


def test_auto_falls_back_to_the_prompt_on_a_422_schema_refusal(llm_server):
    # FastAPI servers (llama-cpp-python) refuse an unknown response_format type with 422.
    llm_server.add_rule(
        match=lambda b: "response_format" in b,
        status=422,
        raw=json.dumps(
            {
                "detail": [
                    {
                        "loc": ["body", "response_format", "type"],
                        "msg": "Input should be 'text' or 'json_object'",
                    }
                ]
            }
        ),
    )
    llm_server.add_rule(match="KIND-CTX", reply={"answer": "b", "score": 2})
    client = LLMClient(llm_server.config())
    reply = client.complete_sync(MSG, schema=Pick)
    assert reply.parsed == Pick(answer="b", score=2)
    assert "response_format" not in llm_server.requests[-1].body
    assert "JSON schema" in llm_server.requests[-1].text


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_connection_is_server_unreachable(llm_server):
    cfg = llm_server.config(base_url=f"http://127.0.0.1:{_closed_port()}/v1", max_retries=1)
    client = LLMClient(cfg)
    with pytest.raises(ServerUnreachable) as info:
        client.complete_sync(MSG)
    assert isinstance(info.value, LLMCallError)
    assert "after 2 attempt(s)" in str(info.value)


def test_timeouts_are_not_server_unreachable(llm_server):
    llm_server.add_rule(match="KIND-CTX", reply="late", delay=2)
    client = LLMClient(llm_server.config(timeout_s=0.3, max_retries=0))
    with pytest.raises(LLMCallError) as info:
        client.complete_sync(MSG)
    assert not isinstance(info.value, ServerUnreachable)
