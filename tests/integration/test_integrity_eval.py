"""Eval runs that fail loudly (issue 15), on the real Neo4j and the local OpenAI-compatible
server: replies that are not answers, failure history across sessions, one writer per run
(two processes on one run id), leases of dead owners, `interrupted` runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import ANSWER_MARKER, add_eval_model

from evaluation.models import Setting
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import get_run, list_runs
from kg import leases

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def _spec(llm_server, run_id: str, limit: int = 3, **kw) -> RunSpec:
    cfg = {"concurrency": 2, "max_retries": 2}
    return RunSpec(
        kind="eval",
        run_id=run_id,
        responder="llm",
        responder_llm=llm_server.config(role="responder", **cfg),
        judge="llm",
        judge_llm=llm_server.config(role="judge", model="judge-model", **cfg),
        domains=["physics"],
        limit=limit,
        setting=Setting.oracle,
        **kw,
    )


def _answers(store, run_id: str) -> int:
    return store.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $r}) RETURN count(a) AS n", r=run_id
    )[0]["n"]


def test_empty_replies_fail_items_are_never_scored_and_history_is_kept(bench, llm_server):
    llm_server.add_rule(match=ANSWER_MARKER, reply="   ")  # every answer is whitespace
    add_eval_model(llm_server)
    first = execute(bench, _spec(llm_server, "empty-replies"))
    assert (first.status, first.completed, first.failed) == ("partial", 0, 3)
    assert all("not an answer: empty reply" in e for e in first.errors[:3])
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == 3 * 3  # retried twice each
    assert _answers(bench, "empty-replies") == 0  # nothing stored, nothing scored
    # the Run counts every call, also those of items that failed after the last batch
    assert get_run(bench, "empty-replies").calls == first.calls > 0
    llm_server.reset()
    add_eval_model(llm_server)
    second = execute(bench, _spec(llm_server, "empty-replies"))
    assert (second.status, second.completed, second.done_before) == ("done", 3, 0)
    run = get_run(bench, "empty-replies")
    assert run.failed == 0 and run.failed_total == 3 and len(run.sessions) == 2


def test_garbage_200_bodies_are_retried_not_failed_at_once(bench, llm_server):
    llm_server.add_rule(match=ANSWER_MARKER, raw="<html>upstream overloaded</html>", times=2)
    llm_server.add_rule(match=ANSWER_MARKER, raw='{"id": "x", "choices": []}', times=1)
    add_eval_model(llm_server)
    summary = execute(bench, _spec(llm_server, "garbage-200"))
    assert (summary.status, summary.completed, summary.failed) == ("done", 3, 0)
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == 3 + 3


def test_a_live_lease_refuses_a_second_owner_and_a_dead_one_is_taken_over(bench):
    dead = leases.Lease(
        bench, "run:lease-test", "lease-test", "eval", "deadhost:1:1", ttl_s=6.0, heartbeat_s=0.5
    ).acquire()
    with pytest.raises(leases.LeaseHeld, match="deadhost:1:1"):
        leases.hold(bench, "run:lease-test", "lease-test", "eval").__enter__()
    dead.stop_watching()  # the owner dies: no more heartbeats
    time.sleep(6.5)
    with leases.hold(bench, "run:lease-test", "lease-test", "eval") as lease:
        assert lease.took_over == "deadhost:1:1" and lease.healthy
    assert (
        bench.run_text("MATCH (l:Lease {key: 'run:lease-test'}) RETURN count(l) AS n")[0]["n"] == 0
    )  # released at the end


def _lease_rows(store, prefix: str) -> dict[str, dict]:
    rows = store.run_text(
        "MATCH (l:Lease) WHERE l.key STARTS WITH $p RETURN l.key AS key, l.owner AS owner,"
        " l.expires_at AS expires_at",
        p=prefix,
    )
    return {r["key"]: r for r in rows}


def test_a_lease_on_several_keys_beats_for_all_of_them_from_one_thread(bench):
    """An import holds every domain it writes: one lease, one heartbeat for all its keys."""
    import threading

    keys = [f"build:multi-{i}" for i in range(5)]
    before = {t.name for t in threading.enumerate()}
    with leases.hold(bench, keys, "import:multi", "import", heartbeat_s=0.2) as lease:
        started = {t.name for t in threading.enumerate()} - before
        assert sorted(started) == ["lease-build:multi-0", "lease-probe-build:multi-0"]
        first = _lease_rows(bench, "build:multi-")
        assert sorted(first) == keys and {r["owner"] for r in first.values()} == {lease.owner}
        time.sleep(1.0)  # a few heartbeats
        later = _lease_rows(bench, "build:multi-")
        assert all(later[k]["expires_at"] > first[k]["expires_at"] for k in keys)
        assert lease.healthy
    assert _lease_rows(bench, "build:multi-") == {}  # every key given back


def test_a_lease_refused_on_one_key_keeps_none_of_the_others(bench):
    other = leases.Lease(
        bench, "build:multi-b", "build-b", "build", "otherhost:1:1", ttl_s=30, heartbeat_s=5
    ).acquire()
    try:
        with pytest.raises(leases.LeaseHeld, match="build:multi-b"):
            keys = ["build:multi-a", "build:multi-b", "build:multi-c"]
            leases.hold(bench, keys, "imp", "import").__enter__()
        assert sorted(_lease_rows(bench, "build:multi-")) == ["build:multi-b"]
        assert _lease_rows(bench, "build:multi-")["build:multi-b"]["owner"] == "otherhost:1:1"
    finally:
        other.release()


def test_a_heartbeat_is_not_chained_to_the_stores_bookmarks(bench):
    """A heartbeat neither waits for this process's earlier writes (a large commit being
    applied would hold it on the server) nor makes later queries wait for it."""
    manager = bench._driver.execute_query_bookmark_manager
    bench.run_text("MERGE (l:Lease {key: 'run:chain-test'}) SET l.owner = 'me'")
    chained = set(manager.get_bookmarks())
    rows = bench.query_unchained(
        "core/lease_heartbeat", keys=["run:chain-test", "run:nobody"], owner="me", ttl_ms=1000
    )
    assert {r["key"]: r["held"] for r in rows} == {"run:chain-test": True, "run:nobody": False}
    assert set(manager.get_bookmarks()) == chained
    bench.run_text("MATCH (l:Lease {key: 'run:chain-test'}) DELETE l")
    assert set(manager.get_bookmarks()) != chained  # a chained write does move them


def test_a_running_run_without_a_live_lease_is_listed_interrupted(bench):
    bench.run_text(
        "MERGE (r:Run {uid: 'died-run'}) SET r.kind = 'eval', r.status = 'running',"
        " r.started_at = '2026-01-01T00:00:00+00:00'"
    )
    rows = {r.uid: r for r in list_runs(bench)}
    assert rows["died-run"].status == "interrupted"
    assert rows["died-run"].status_reason == "lease expired"
    with leases.hold(bench, "run:died-run", "died-run", "eval"):
        rows = {r.uid: r for r in list_runs(bench)}
        assert rows["died-run"].status == "running"
        assert rows["died-run"].owner == leases.owner_id()


def _kg_eval(llm_server, run_id: str) -> subprocess.Popen:
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "COLUMNS": "400"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kg.cli.main",
            "eval",
            "run",
            "--model",
            "test-model",
            "--base-url",
            llm_server.base_url,
            "--judge",
            "judge-model",
            "--domain",
            "physics",
            "--limit",
            "4",
            "--run-id",
            run_id,
            "--no-cache",
            "--concurrency",
            "1",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_two_processes_on_one_run_id_do_the_work_once(bench, llm_server):
    add_eval_model(llm_server)
    # The first process's replies are held until the second has been refused, so the two
    # overlap however long a loaded machine takes to start Python.
    llm_server.pause()
    first = _kg_eval(llm_server, "same-id")
    deadline = time.time() + 120
    while time.time() < deadline and not bench.run_text(
        "MATCH (l:Lease {key: 'run:same-id'}) RETURN l.owner AS o"
    ):
        assert first.poll() is None, first.stdout.read()
        time.sleep(0.2)
    second = _kg_eval(llm_server, "same-id")
    try:
        out2, _ = second.communicate(timeout=300)
    finally:
        llm_server.resume()
    out1, _ = first.communicate(timeout=300)
    assert second.returncode == 3, out2
    assert "being executed by" in out2 and str(first.pid) in out2
    assert first.returncode == 0, out1
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == 4  # the work was done once
    assert _answers(bench, "same-id") == 4
