"""`kg eval run --batch` / `kg eval judge --batch` on a real Neo4j, against the scripted server
speaking OpenAI's batch protocol over real HTTP (tests/llm_batch_server.py): the same answers
and scores as the direct run on the same replies, the batch price, and the faults (a failed
line, an expired batch, a malformed output file, a lost reply to the submission, a process
killed while its batches are in flight)."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from cli_runs import eval_run_cmd, kill_when
from llm_batch_server import BatchTestServer
from llm_server import ANSWER_MARKER, FAITH_MARKER, PATHS_MARKER, add_eval_model

from evaluation.models import Setting
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import get_run
from evaluation.scoring.question_scores import run_scores
from kg.llm import Price

pytestmark = pytest.mark.integration
N = 6
PRICES = {
    "test-model": Price(input_per_mtok=2.0, output_per_mtok=8.0),
    "judge-model": Price(input_per_mtok=1.0, output_per_mtok=4.0),
}


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("KG_LLM_BATCH_POLL_S", "0.02")
    monkeypatch.setenv("KG_LLM_BATCH_POLL_MAX_S", "0.1")
    with BatchTestServer() as s:
        add_eval_model(s)
        yield s


def spec(server, run_id: str, batch: bool, **kw) -> RunSpec:
    def cfg(role: str, model: str):
        return server.config(model=model, role=role, batch=batch, prices=PRICES, concurrency=4)

    values = {
        "kind": "eval",
        "run_id": run_id,
        "responder": "llm",
        "responder_llm": cfg("responder", "test-model"),
        "judge": "llm",
        "judge_llm": cfg("judge", "judge-model"),
        "domains": ["physics"],
        "limit": N,
        "setting": Setting.oracle,
    }
    values.update(kw)
    return RunSpec(**values)


def answers(store, run_id: str) -> dict[str, str]:
    rows = store.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $r}) MATCH (a)-[:FOR]->(q) "
        "RETURN q.uid AS q, a.text AS text",
        r=run_id,
    )
    return {r["q"]: r["text"] for r in rows}


def scores(store, run_id: str) -> dict[str, dict]:
    _, rows = run_scores(store, run_id)
    return {s.question: s.model_dump(exclude={"answer"}) for s in rows}


def billed(server) -> float:
    """The list price of every line the batches answered (the usage in their output files)."""
    total = 0.0
    for batch in server.batches.values():
        for line in server.files[batch["output_file_id"]].decode().splitlines():
            body = json.loads(line)["response"]["body"]
            price, usage = PRICES[body["model"]], body["usage"]
            total += usage["prompt_tokens"] * price.input_per_mtok
            total += usage["completion_tokens"] * price.output_per_mtok
    return total / 1e6


def direct_requests(server) -> list:
    return [r for r in server.requests if "x-batch-id" not in r.headers]


DISTINCT: dict[str, int] = {}  # distinct requests of the direct run, by model


@pytest.fixture(scope="module")
def direct(bench):
    """The non-batch run (and judge run) every batch run is compared with."""
    with BatchTestServer() as s:
        add_eval_model(s)
        summary = execute(bench, spec(s, "direct", batch=False))
        assert summary.status == "done" and summary.completed == N, summary.errors
        for model in ("test-model", "judge-model"):  # equal requests are one batch line
            bodies = {json.dumps(r.body, sort_keys=True) for r in s.requests}
            DISTINCT[model] = sum(1 for b in bodies if json.loads(b)["model"] == model)
        judged = execute(bench, judge_spec(s, "direct-judged", "direct", batch=False))
        assert judged.status == "done", judged.errors
    return bench


def lines() -> int:
    """The batch lines of a whole run: its distinct requests."""
    return DISTINCT["test-model"] + DISTINCT["judge-model"]


def judge_spec(server, run_id: str, source: str, batch: bool) -> RunSpec:
    base = spec(server, run_id, batch)
    return base.model_copy(
        update={"kind": "judge", "source_run": source, "responder_llm": None, "limit": None}
    )


def test_batch_run_equals_direct_run_at_the_batch_price(direct, server):
    summary = execute(direct, spec(server, "batched", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    assert direct_requests(server) == []  # every request went out in a batch
    assert (summary.batches, summary.batch_lines) == (2, lines())
    # round 1: the answers (one model, one batch); round 2: their judging; round 3: nothing
    assert server.creates == 2
    assert sorted(b["metadata"]["kg_scope"] for b in server.batches.values()) == ["batched"] * 2
    assert len(server.submitted_ids) == len(set(server.submitted_ids)) == lines()
    assert answers(direct, "batched") == answers(direct, "direct")
    assert scores(direct, "batched") == scores(direct, "direct")
    # the same tokens at half the price
    plain, batched = get_run(direct, "direct"), get_run(direct, "batched")
    assert (batched.tokens_in, batched.tokens_out) == (plain.tokens_in, plain.tokens_out)
    assert plain.cost and batched.cost == pytest.approx(billed(server) * 0.5)
    assert batched.cost < plain.cost * 0.5  # equal requests are one line, billed once
    nodes = direct.run_text(
        "MATCH (b:LLMBatch {scope: 'batched'}) RETURN b.state AS state, b.lines AS lines, "
        "b.model AS model, b.id AS id, b.output_file AS out ORDER BY b.created_at"
    )
    assert [(n["state"], n["lines"], n["model"]) for n in nodes] == [
        ("completed", N, "test-model"),
        ("completed", DISTINCT["judge-model"], "judge-model"),
    ]
    assert all(n["id"] in server.batches and n["out"] for n in nodes)


def test_a_voting_judge_in_batch_mode_equals_its_direct_run(direct, server):
    """Each vote is a request of its own (its seeded shuffle): in batch mode they are lines of
    the judging round, and the votes, scores and self-agreement are the direct run's."""
    with BatchTestServer() as plain_server:
        add_eval_model(plain_server)
        plain = execute(direct, spec(plain_server, "direct-votes", batch=False, judge_votes=3))
    assert plain.status == "done" and plain.judge_self_agreement is not None, plain.errors
    summary = execute(direct, spec(server, "batched-votes", batch=True, judge_votes=3))
    assert summary.status == "done" and summary.completed == N, summary.errors
    assert direct_requests(server) == [] and server.creates == 2
    assert len(server.submitted_ids) == len(set(server.submitted_ids))
    assert answers(direct, "batched-votes") == answers(direct, "direct-votes")
    assert scores(direct, "batched-votes") == scores(direct, "direct-votes")
    assert summary.judge_self_agreement == plain.judge_self_agreement
    batched, plain_votes = (
        direct.query("eval/run_judge_votes", uid=r)[0] for r in ("batched-votes", "direct-votes")
    )
    assert sum(len(v) for v in batched["per_answer"]) > 0  # the verdicts carry their votes
    assert sorted(map(sorted, batched["per_answer"])) == sorted(
        map(sorted, plain_votes["per_answer"])
    )
    assert (batched["ties"], batched["failed_votes"]) == (plain_votes["ties"], 0)


def test_lines_split_at_the_file_limit(direct, server, monkeypatch):
    monkeypatch.setenv("KG_LLM_BATCH_MAX_LINES", "4")
    summary = execute(direct, spec(server, "batched-split", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    sizes = [len(server.lines_of(b)) for b in server.batches]
    per_model = {m: -(-DISTINCT[m] // 4) for m in DISTINCT}  # files of at most 4 lines
    assert len(sizes) == sum(per_model.values()) and max(sizes) == 4
    assert len(server.submitted_ids) == len(set(server.submitted_ids)) == lines()
    assert scores(direct, "batched-split") == scores(direct, "direct")


def test_batch_judge_run_equals_direct_judge_run(direct, server):
    summary = execute(direct, judge_spec(server, "batched-judged", "direct", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    assert direct_requests(server) == [] and server.creates == 1
    assert len(server.requests_matching(ANSWER_MARKER)) == 0  # only the judge is asked
    assert scores(direct, "batched-judged") == scores(direct, "direct-judged")


@pytest.mark.parametrize("fault", [{"status": 500}, {"reply": ""}], ids=["500", "empty"])
def test_a_failed_line_is_sent_again(direct, server, fault):
    """A line answered with an error status, or with no answer (empty content)."""
    server.rules.insert(0, server.add_rule(match=ANSWER_MARKER, times=1, **fault))
    server.rules.pop()  # add_rule appended it: it is tried first now
    run_id = f"batched-failed-line-{fault.get('status', 'empty')}"
    summary = execute(direct, spec(server, run_id, batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    counts = Counter(server.submitted_ids)
    assert sorted(counts.values()) == [1] * (lines() - 1) + [2]  # that line alone, again
    # answers; the failed answer again + the other answers' judging; its judging
    assert server.creates == 4
    assert answers(direct, run_id) == answers(direct, "direct")
    assert scores(direct, run_id) == scores(direct, "direct")


def test_a_line_failing_twice_is_reported_never_scored(direct, server):
    victim = sorted(answers(direct, "direct"))[0]
    text = direct.run_text("MATCH (q:Question {uid: $u}) RETURN q.text AS t", u=victim)[0]["t"]
    server.rules.insert(
        0,
        server.add_rule(
            match=lambda body: ANSWER_MARKER in str(body) and text in str(body), status=500
        ),
    )
    server.rules.pop()
    summary = execute(direct, spec(server, "batched-lost-line", batch=True))
    assert summary.status == "partial" and summary.completed == N - 1
    assert summary.failed == 1
    assert any("no reply in 2 batch(es)" in e and "status 500" in e for e in summary.errors)
    stored = answers(direct, "batched-lost-line")
    assert victim not in stored and len(stored) == N - 1
    assert victim not in scores(direct, "batched-lost-line")


def test_an_expired_batch_sends_its_unfinished_lines_once_more(direct, server):
    server.expire_next(keep=2)
    summary = execute(direct, spec(server, "batched-expired", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    first = server.batches["batch_1"]
    assert first["status"] == "expired"
    counts = Counter(server.submitted_ids)
    assert sorted(counts.values()) == [1] * (lines() - N + 2) + [2] * (N - 2)
    assert answers(direct, "batched-expired") == answers(direct, "direct")
    assert scores(direct, "batched-expired") == scores(direct, "direct")


def test_a_failed_batch_sends_its_lines_once_more(direct, server):
    server.fail_next()
    summary = execute(direct, spec(server, "batched-failed-batch", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    assert server.batches["batch_1"]["status"] == "failed"
    counts = Counter(server.submitted_ids)
    assert sorted(counts.values()) == [1] * (lines() - N) + [2] * N
    assert scores(direct, "batched-failed-batch") == scores(direct, "direct")


def test_a_malformed_output_line_is_named_and_nothing_taken_from_it(direct, server):
    server.malform_next(line=1)
    summary = execute(direct, spec(server, "batched-malformed", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    first = server.batches["batch_1"]
    problem = f"batch batch_1 output file {first['output_file_id']} line 1: not JSON"
    assert any(e.startswith(problem) for e in summary.errors), summary.errors
    # the cut line's request was sent again, in a batch of its own, and that reply is used
    assert sorted(Counter(server.submitted_ids).values()) == [1] * (lines() - 1) + [2]
    assert answers(direct, "batched-malformed") == answers(direct, "direct")
    assert scores(direct, "batched-malformed") == scores(direct, "direct")


def test_a_lost_reply_to_the_submission_adopts_the_batch(direct, server):
    """The provider accepts the batch and the connection drops before its reply: the batch
    is found by its token among the provider's batches, never submitted twice."""
    server.drop_next_create()
    summary = execute(direct, spec(server, "batched-dropped", batch=True))
    assert summary.status == "done" and summary.completed == N, summary.errors
    assert server.creates == 2
    assert len(server.submitted_ids) == len(set(server.submitted_ids)) == lines()
    assert answers(direct, "batched-dropped") == answers(direct, "direct")


def _cmd(base_url: str, run_id: str, prices: Path) -> list[str]:
    return eval_run_cmd(base_url, run_id, N, "--batch", "--prices", str(prices))


def _prices(tmp_path) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({m: p.model_dump() for m, p in PRICES.items()}))
    return path


def _batch_ids(store, run_id: str) -> list[str | None]:
    rows = store.run_text("MATCH (b:LLMBatch {scope: $r}) RETURN b.id AS id", r=run_id)
    return [r["id"] for r in rows]


def _env(tmp_path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "KG_LLM_BATCH_POLL_S": "0.05",
        "KG_LLM_BATCH_POLL_MAX_S": "0.2",
    }


def _rerun_equals_direct(direct, server, run_id: str, env: dict[str, str], prices: Path) -> None:
    """The rerun finishes the run: the judge's batch is the only new one, no line was sent
    twice, nothing is lost, and the answers and scores are the direct run's."""
    out = subprocess.run(
        _cmd(server.base_url, run_id, prices), env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    said = f"1 provider batch(es) of {DISTINCT['judge-model']} request(s) submitted (--batch)"
    assert said in " ".join(out.stdout.split())
    assert server.creates == 2  # the answers' batch was polled, not submitted again
    assert len(server.submitted_ids) == len(set(server.submitted_ids)) == lines()
    assert direct_requests(server) == []
    assert answers(direct, run_id) == answers(direct, "direct")
    assert scores(direct, run_id) == scores(direct, "direct")
    assert len(server.requests_matching(PATHS_MARKER)) == N
    assert len(server.requests_matching(FAITH_MARKER)) == N
    # every line the batches answered is charged once, at the batch price, across the kill
    assert get_run(direct, run_id).cost == pytest.approx(billed(server) * 0.5)


def test_killed_while_batches_are_in_flight_resumes_by_polling_them(direct, server, tmp_path):
    """kill -9 of `kg eval run --batch` while its first batch is in flight; the rerun polls
    the same batch: 0 duplicate submissions, 0 lost answers, the direct run's scores."""
    env, prices = _env(tmp_path), _prices(tmp_path)
    server.hold()  # the batch stays in_progress
    kill_when(
        _cmd(server.base_url, "batched-killed", prices),
        env,
        lambda: server.polls >= 3 and any(_batch_ids(direct, "batched-killed")),
    )
    assert server.creates == 1 and server.batches["batch_1"]["status"] == "in_progress"
    assert answers(direct, "batched-killed") == {}
    server.release()
    _rerun_equals_direct(direct, server, "batched-killed", env, prices)


def test_killed_between_submission_and_its_reply_adopts_the_batch(direct, server, tmp_path):
    """kill -9 after the provider accepted the batch but before its id reached the graph:
    the rerun finds the batch by the token in its metadata and polls it."""
    env, prices = _env(tmp_path), _prices(tmp_path)
    server.stall_next_create(120)
    kill_when(_cmd(server.base_url, "batched-window", prices), env, lambda: server.creates == 1)
    node = direct.run_text(
        "MATCH (b:LLMBatch {scope: 'batched-window'}) RETURN b.state AS state, b.id AS id"
    )
    assert node == [{"state": "submitting", "id": None}]
    _rerun_equals_direct(direct, server, "batched-window", env, prices)
    state = direct.run_text(
        "MATCH (b:LLMBatch {scope: 'batched-window'}) RETURN b.id AS id ORDER BY b.created_at"
    )
    assert [r["id"] for r in state] == ["batch_1", "batch_2"]
