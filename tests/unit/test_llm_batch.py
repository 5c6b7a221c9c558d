"""Batch mode pieces without a database: input files split at the limits, output and error
files read line by line (malformed lines named), the book's rules (pending, in flight, the
retry bound, charged once), and the client answering from the book at the batch price."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from kg.llm import LLMCallError, LLMClient, Price
from kg.llm.batch import BatchBook, BatchPending
from kg.llm.batch.lines import input_line, read_results, split_lines


def _body(i: int, size: int = 10) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": "x" * size + str(i)}]}


def test_split_at_the_line_and_byte_limits():
    lines = {f"id{i}": _body(i) for i in range(7)}
    assert [len(f) for f in split_lines(lines, max_lines=3)] == [3, 3, 1]
    one = len(input_line("id0", _body(0)))
    by_bytes = split_lines(lines, max_bytes=2 * one + 1)
    assert [len(f) for f in by_bytes] == [2, 2, 2, 1]
    assert all(sum(len(raw) for _, raw in f) <= 2 * one + 1 for f in by_bytes)
    first = json.loads(by_bytes[0][0][1])
    assert first == {
        "custom_id": "id0",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": _body(0),
    }
    with pytest.raises(ValueError, match="batch line big: .* bytes, more than a batch file"):
        split_lines({"big": _body(0, size=500)}, max_bytes=100)


def _row(cid: str, status: int = 200, body: object = None, error: object = None) -> str:
    response = None if error else {"status_code": status, "body": body or {"choices": []}}
    return json.dumps({"custom_id": cid, "response": response, "error": error})


def test_output_and_error_files_are_read_line_by_line():
    raw = "\n".join(
        [
            _row("a"),
            _row("b", 500, {"error": {"message": "boom"}}),
            _row("c", error={"code": "batch_expired", "message": "too late"}),
            '{"custom_id": "d", "respo',
            _row("zzz"),
            json.dumps({"custom_id": "e", "response": "??"}),
        ]
    ).encode()
    got = read_results(raw, "batch b1 output file f1", {"a", "b", "c", "d", "e"})
    assert list(got.replies) == ["a"]
    assert got.failed["b"] == "batch b1 output file f1 line 2: status 500: boom"
    assert got.failed["c"] == "batch b1 output file f1 line 3: batch_expired: too late"
    assert got.problems[0].startswith("batch b1 output file f1 line 4: not JSON")
    assert got.problems[1] == (
        "batch b1 output file f1 line 5: custom_id 'zzz' is not a line of this batch"
    )
    assert got.problems[2].startswith("batch b1 output file f1 line 6: custom_id e: no response")
    assert "d" not in got.replies and "d" not in got.failed  # nothing taken from a cut line


def test_book_pending_in_flight_retry_bound_and_charged_once():
    book = BatchBook(max_tries=2)
    with pytest.raises(BatchPending):
        book.reply("x", {"n": 1})
    assert book.take_wanted() == {"x": {"n": 1}} and book.wanted == {}
    book.in_flight.add("x")
    with pytest.raises(BatchPending):  # in a batch already: not a line again
        book.reply("x", {"n": 1})
    assert book.wanted == {}
    book.failed("x", "first")
    with pytest.raises(BatchPending):  # failed once: sent again
        book.reply("x", {"n": 1})
    book.take_wanted()
    book.failed("x", "second")
    with pytest.raises(Exception, match="no reply in 2 batch"):
        book.reply("x", {"n": 1})
    book.answered("y", {"ok": 1})
    assert book.reply("y", {}) == ({"ok": 1}, True)
    assert book.reply("y", {}) == ({"ok": 1}, False)  # charged the first time only


class Pick(BaseModel):
    value: int


def _completion(content: str) -> dict:
    return {
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"content": content}}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 500},
    }


def test_client_answers_from_the_book_with_a_repair_round(llm_server):
    cfg = llm_server.config(model="m", prices={"m": Price(input_per_mtok=2, output_per_mtok=4)})
    client = LLMClient(cfg.model_copy(update={"batch": True}))
    client.batch = book = BatchBook()
    messages = [{"role": "user", "content": "pick"}]

    def ask():
        return asyncio.run(client.complete(messages, schema=Pick))

    with pytest.raises(BatchPending):
        ask()
    [(first_id, body)] = book.take_wanted().items()
    assert body["messages"] == messages and body["response_format"]["type"] == "json_schema"
    assert client.ledger.records == []  # a pending request has cost nothing
    book.answered(first_id, _completion("not json"))
    with pytest.raises(BatchPending):  # the reply fails its schema: the repair is a line
        ask()
    [(repair_id, repair)] = book.take_wanted().items()
    assert repair_id != first_id and repair["messages"][1]["content"] == "not json"
    book.answered(repair_id, _completion('{"value": 7}'))
    reply = ask()
    assert reply.parsed == Pick(value=7) and llm_server.calls == 0  # no direct request
    # each reply charged once, at half price: (1000*2 + 500*4) / 1e6 * 0.5 per reply
    assert client.ledger.cost == pytest.approx(2 * 0.002)
    assert ask().parsed == Pick(value=7)
    assert client.ledger.cost == pytest.approx(2 * 0.002)  # served again: free
    # a line without a reply in two batches fails the call, like a call out of retries
    client.batch = book = BatchBook()
    book.failed(first_id, "batch b1 failed")
    book.failed(first_id, "batch b2 expired")
    with pytest.raises(LLMCallError, match="no reply in 2 batch.*b1 failed; batch b2 expired"):
        ask()


def test_batch_with_the_local_model_is_refused():
    from kg.errors import InputError
    from kg.llm import llm_config

    with pytest.raises(InputError, match="--batch needs a provider with a batch API"):
        llm_config("local/smollm2-135m", role="responder", batch=True)
