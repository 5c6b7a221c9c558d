"""A model server that dies in the middle of `kg eval run`: the run stops at once with a
message naming the fix (not one slow failure per question), keeps what it finished, and the
same command with --run-id resumes once the server is back."""

from __future__ import annotations

import threading

import pytest
from llm_server import ANSWER_MARKER, LLMTestServer, add_eval_model

from evaluation.models import Setting
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import get_run

pytestmark = pytest.mark.integration
N = 8


def _spec(base_url: str) -> RunSpec:
    cfg = {
        "base_url": base_url,
        "cache": False,
        "concurrency": 1,
        "max_retries": 3,
        "backoff_base_s": 0.05,
    }
    from kg.llm import LLMConfig

    return RunSpec(
        kind="eval",
        run_id="dies-midway",
        responder="llm",
        responder_llm=LLMConfig(model="test-model", role="responder", **cfg),
        judge="llm",
        judge_llm=LLMConfig(model="judge-model", role="judge", **cfg),
        domains=["physics"],
        limit=N,
        setting=Setting.base,
        relevancy_n=0,
    )


def _judged(store) -> int:
    return store.run_text(
        "MATCH (:Answer)-[:JUDGED_IN]->(:Run {uid: 'dies-midway'}) RETURN count(*) AS n"
    )[0]["n"]


def test_dead_server_stops_the_run_then_it_resumes(bench):
    first = LLMTestServer().start()
    port = first.port
    add_eval_model(first)
    answers = {"n": 0}

    def kill_after_three(body):
        answers["n"] += 1
        if answers["n"] == 4:  # the fourth answer never arrives: the server goes away
            threading.Thread(target=first.stop, daemon=True).start()
        return "An answer."

    first.rules.pop()  # the scripted answer rule (added last): ours answers instead
    first.add_rule(match=ANSWER_MARKER, reply=kill_after_three, delay=0.2)
    summary = execute(bench, _spec(first.base_url))
    first.stop()
    assert summary.status == "interrupted"
    assert 0 < summary.completed < N and summary.failed == N - summary.completed
    stop_msg = summary.errors[0]
    assert "the model server stopped answering" in stop_msg
    assert "--run-id dies-midway" in stop_msg and "ServerUnreachable" not in stop_msg[:20]
    run = get_run(bench, "dies-midway")
    assert run.status == "interrupted"
    done = _judged(bench)
    assert done == summary.completed

    with LLMTestServer(port=port) as again:  # the server is back on its address
        add_eval_model(again)
        resumed = execute(bench, _spec(again.base_url))
        assert resumed.status == "done", resumed.errors
        assert resumed.done_before == done and resumed.completed == N - done
        assert len(again.requests_matching(ANSWER_MARKER)) == N - done  # nothing asked twice
    assert _judged(bench) == N
