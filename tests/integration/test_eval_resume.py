"""`kg eval run --run-id X` resumes after a kill -9: a real subprocess is killed mid-run, the
rerun finishes the rest, with no duplicate answers or verdicts and nothing lost."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from cli_runs import eval_run_cmd
from llm_server import ANSWER_MARKER, add_eval_model

pytestmark = pytest.mark.integration
N = 16


def _cmd(base_url: str) -> list[str]:
    return eval_run_cmd(base_url, "resume-me", N, "--concurrency", "1", "--relevancy-n", "0")


def _judged(store) -> int:
    return store.run_text(
        "MATCH (:Answer)-[:JUDGED_IN]->(:Run {uid: 'resume-me'}) RETURN count(*) AS n"
    )[0]["n"]


def test_kill_9_then_resume(bench, llm_server, tmp_path):
    add_eval_model(llm_server, delay=0.4)
    env = {
        **os.environ,
        "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", "") or str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
    }
    proc = subprocess.Popen(
        _cmd(llm_server.base_url),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 180
        while _judged(bench) == 0:
            assert proc.poll() is None, proc.stdout.read().decode()[-2000:]
            assert time.time() < deadline, "the run wrote nothing within 180 s"
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)  # kill -9 in the middle of the run
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    done_at_kill = _judged(bench)
    assert 0 < done_at_kill < N, f"killed too late: {done_at_kill} of {N} done"
    status = bench.run_text("MATCH (r:Run {uid: 'resume-me'}) RETURN r.status AS s")[0]["s"]
    assert status == "running"  # it never got to close the run

    llm_server.reset()
    add_eval_model(llm_server)
    out = subprocess.run(
        _cmd(llm_server.base_url), env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert f"{N - done_at_kill} question(s) judged now, {done_at_kill} before" in " ".join(
        out.stdout.split()
    )
    # the responder was asked only for the questions that were not finished
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == N - done_at_kill

    rows = bench.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: 'resume-me'}) MATCH (a)-[:FOR]->(q) "
        "RETURN q.uid AS q, count(a) AS answers, COUNT { (:Verdict)-[:OF]->(a) } AS verdicts, "
        "COUNT { (q)-[:TARGET|DISTRACTOR]->() } AS paths, COUNT { (a)-[:JUDGED_IN]->() } AS j"
    )
    assert len(rows) == N
    assert all(r["answers"] == 1 and r["j"] == 1 for r in rows)
    assert all(r["verdicts"] == r["paths"] for r in rows)  # no duplicate, none missing
    run = bench.run_text("MATCH (r:Run {uid: 'resume-me'}) RETURN r.status AS s")[0]
    assert run["s"] == "done"
