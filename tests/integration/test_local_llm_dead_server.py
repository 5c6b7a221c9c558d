"""The real local model server (llama.cpp) killed in the middle of `kg eval run`: the command
stops at once and cleanly (exit code 2, one message saying how to resume, no traceback), keeps
what it finished, and the same command after `kg llm up` resumes and completes.

The server here is one of the test's own (a free port, its own home), not the session's
`local_llm` server that the other tests share."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.local_llm]
ROOT = Path(__file__).resolve().parents[2]
RUN = "local-dies-midway"
# Enough questions that some are left when the first batch is stored: the offline judge
# stores answers in batches (every 2 s, after its model has loaded), and on an idle machine
# six short answers were all written in the first batch, before the server could be killed.
N = 20


@pytest.fixture
def own_llm(local_llm, tmp_path):
    """Env of a model server on a free port of its own; stopped at the end."""
    from kg.llm.local import get_local_settings, server

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "KG_LLM_PORT": str(port),
        "KG_LLM_SERVER_HOME": str(tmp_path / "llm"),
        "COLUMNS": "400",
    }
    yield env
    server.stop(get_local_settings(port=port, server_home=tmp_path / "llm"))


def _kg(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli.main", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


EVAL = [
    "eval",
    "run",
    "--model",
    "local/smollm2-135m",
    "--judge",
    "edge-evidence",
    "--setting",
    "base",
    "--domain",
    "physics",
    "--limit",
    str(N),
    "--max-tokens",
    "64",
    "--concurrency",
    "1",
    "--no-cache",
    "--run-id",
    RUN,
]


def _judged(store) -> int:
    return store.run_text(
        "MATCH (:Answer)-[:JUDGED_IN]->(:Run {uid: $r}) RETURN count(*) AS n", r=RUN
    )[0]["n"]


def test_killed_local_server_stops_the_run_cleanly_and_it_resumes(bench, own_llm):
    from kg.llm.local import get_local_settings, server

    up = _kg(own_llm, "llm", "up")
    assert up.returncode == 0, up.stdout + up.stderr
    settings = get_local_settings(
        port=int(own_llm["KG_LLM_PORT"]), server_home=Path(own_llm["KG_LLM_SERVER_HOME"])
    )
    pid = server.status(settings).pid
    assert pid

    first = subprocess.Popen(
        [sys.executable, "-m", "kg.cli.main", *EVAL],
        cwd=ROOT,
        env=own_llm,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 600
    while _judged(bench) < 1:  # the first question is stored: the server dies now
        assert first.poll() is None, first.stdout.read() if first.stdout else ""
        assert time.monotonic() < deadline, "no question was stored within 600 s"
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    output = first.communicate(timeout=300)[0]
    assert first.returncode == 2, output
    assert "Traceback" not in output, output
    assert "the model server stopped answering" in output
    assert f"--run-id {RUN} to resume" in output
    assert len(output.splitlines()) < 25, output  # one message, not one per question
    done = _judged(bench)
    assert 1 <= done < N, output

    again = _kg(own_llm, "llm", "up")
    assert again.returncode == 0 and "started" in again.stdout, again.stdout + again.stderr
    resumed = _kg(own_llm, *EVAL)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{N - done} question(s) judged now, {done} before" in resumed.stdout
    assert _judged(bench) == N
