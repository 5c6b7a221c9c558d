"""`kg ...` in process against the test server: the one place integration tests point the CLI
at the server the session fixture provisioned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
Run = Callable[..., object]


def point_at(store, mp: pytest.MonkeyPatch) -> None:
    """The CLI's settings come from the environment: the test server's URI or Bolt port."""
    s = store.settings
    if s.neo4j_uri:
        mp.setenv("NEO4J_URI", s.neo4j_uri)
        if s.neo4j_password is not None:
            mp.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    else:
        mp.setenv("KG_BOLT_PORT", str(s.bolt_port))


def run(*args: str, code: int = 0):
    """`kg ARGS`, asserting its exit code (the output is shown when it differs)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


def import_demo_sample() -> None:
    run(
        "import",
        "perspectivebench",
        str(ROOT / "demo/bench/sample.jsonl"),
        "--palette",
        str(ROOT / "demo/bench/palette.json"),
    )


def kill_when(cmd: list[str], env: dict[str, str], ready) -> None:
    """Start `kg ...` in a process of its own and kill -9 it once `ready()` holds."""
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline = time.time() + 180
        while not ready():
            assert proc.poll() is None, proc.stdout.read().decode()[-3000:]
            assert time.time() < deadline, "not ready to be killed within 180 s"
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def eval_run_cmd(base_url: str, run_id: str, limit: int, *extra: str) -> list[str]:
    """`kg eval run` of the scripted test model and judge over `limit` physics questions
    (oracle, no cache) as a process of its own, for tests that kill or interrupt it."""
    return [
        *(sys.executable, "-m", "kg.cli.main", "eval", "run"),
        *("--model", "test-model", "--base-url", base_url, "--judge", "judge-model"),
        *("--domain", "physics", "--limit", str(limit), "--setting", "oracle"),
        *("--no-cache", "--run-id", run_id, *extra),
    ]
