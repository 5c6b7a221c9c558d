"""Replies that are not answers (issue 15): empty, whitespace-only, no choices, bodies that are
not JSON. Retried like transient errors; when they persist the call fails with the reason;
they are never returned, never cached. Real HTTP against tests/llm_server.py."""

from __future__ import annotations

import json

import pytest

from kg.llm import LLMCallError, LLMClient, ResponseCache
from kg.llm.cache import CachedReply, cache_key
from kg.llm.reply_check import NotAnAnswer, answer_text

MSG = [{"role": "user", "content": "NOT-AN-ANSWER go"}]
_NO_CHOICES = json.dumps({"id": "x", "object": "chat.completion", "choices": []})
_NO_MESSAGE = json.dumps({"id": "x", "choices": [{"index": 0}]})


@pytest.mark.parametrize(
    "resp, reason",
    [
        ({"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}, "empty reply"),
        ({"choices": [{"message": {"content": " \n\t"}}]}, "empty reply"),
        ({"choices": [{"message": {"content": None}}]}, "empty reply"),
        ({"choices": []}, "no choices"),
        ({"object": "chat.completion"}, "no choices"),
        ({"choices": [{"index": 0}]}, "no message"),
        ("plain text", "not a JSON object"),
    ],
)
def test_answer_text_refuses_what_is_not_an_answer(resp, reason):
    with pytest.raises(NotAnAnswer, match=reason):
        answer_text(resp)


def test_answer_text_keeps_real_content():
    assert answer_text({"choices": [{"message": {"content": " ok "}}]}) == " ok "


@pytest.mark.parametrize(
    "rule",
    [
        {"reply": ""},
        {"reply": "   "},
        {"raw": _NO_CHOICES},
        {"raw": _NO_MESSAGE},
        {"raw": "<html>502 Bad Gateway</html>"},
    ],
)
def test_a_transient_non_answer_is_retried(llm_server, rule):
    llm_server.add_rule(match="NOT-AN-ANSWER", times=2, **rule)
    llm_server.add_rule(match="NOT-AN-ANSWER", reply="a real answer")
    client = LLMClient(llm_server.config(max_retries=3))
    reply = client.complete_sync(MSG)
    assert reply.text == "a real answer"
    assert len(llm_server.requests) == 3
    assert client.ledger.records[-1].attempts == 3  # every request sent is in the ledger


def test_a_persistent_empty_reply_fails_with_its_reason_and_is_not_cached(llm_server, tmp_path):
    llm_server.add_rule(match="NOT-AN-ANSWER", reply="")
    cache = ResponseCache(tmp_path / "cache.sqlite")
    client = LLMClient(llm_server.config(max_retries=2, cache=True), cache=cache)
    with pytest.raises(LLMCallError, match="not an answer: empty reply"):
        client.complete_sync(MSG)
    assert len(llm_server.requests) == 3
    assert len(cache) == 0


def test_an_empty_reply_cached_by_an_old_version_is_not_replayed(llm_server, tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    client = LLMClient(llm_server.config(cache=True), cache=cache)
    key = cache_key(
        client.config.model_name,
        client.config.resolved_base_url,
        MSG,
        client.request_params(),
        None,
    )
    cache.put(key, CachedReply(text="", model="test-model"))
    llm_server.add_rule(match="NOT-AN-ANSWER", reply="fresh")
    reply = client.complete_sync(MSG)
    assert (reply.text, reply.cached, len(llm_server.requests)) == ("fresh", False, 1)
    assert cache.get(key).text == "fresh"
