"""Neo4j killed mid-eval (issue 15): the run stops dispatching model calls within seconds,
prints one clear error (what failed, that the run can be resumed, the command) and its local
ledger holds every request actually sent. Uses a throwaway server on ports 7726/7736 (never
the main test instance: it is killed with SIGKILL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import ANSWER_MARKER, add_eval_model

from kg.settings import get_settings

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
PORTS = {"KG_BOLT_PORT": "7726", "KG_HTTP_PORT": "7736"}


@pytest.fixture(scope="module")
def throwaway(shared_data):
    from kg.server import process
    from kg.store import Store

    env = {**os.environ, **PORTS, "KG_START_TIMEOUT_S": "900"}
    subprocess.run(
        [sys.executable, "-m", "kg.cli.main", "db", "up"],
        env=env,
        check=True,
        cwd=ROOT,
        timeout=1000,
        capture_output=True,
    )
    settings = get_settings(bolt_port=7726, http_port=7736)
    with Store(settings) as store:
        store.wipe()
        store.ensure_schema()
        from construction.perspectivebench.importer import import_perspectivebench

        import_perspectivebench(store, [shared_data / "perspectivebench/sample.jsonl"])
    yield settings, env
    try:
        process.stop(settings)
    except Exception as exc:  # noqa: BLE001 - killed by the test: nothing may be left to stop
        print(f"throwaway server stop: {exc}")


def test_neo4j_killed_mid_eval_stops_the_run_with_one_clear_error(throwaway, llm_server):
    from kg.server import process

    settings, env = throwaway
    ledger = get_settings().cache_dir / "ledgers" / "lost-db.jsonl"
    ledger.unlink(missing_ok=True)  # the ledger appends per session: count this one only
    add_eval_model(llm_server, delay=0.3)
    run = subprocess.Popen(
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
            "40",
            "--run-id",
            "lost-db",
            "--no-cache",
            "--concurrency",
            "2",
        ],
        cwd=ROOT,
        env={**env, "OPENAI_API_KEY": "k", "COLUMNS": "400"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.time() + 300
    while len(llm_server.requests_matching(ANSWER_MARKER)) < 6:
        assert run.poll() is None and time.time() < deadline
        time.sleep(0.2)
    os.kill(process.status(settings).pid, signal.SIGKILL)
    killed_at = time.time()
    out, _ = run.communicate(timeout=300)
    after = [r for r in llm_server.requests if r.at > killed_at + 10]
    assert run.returncode == 3, out
    assert after == [], out  # no model call dispatched more than 10 s after the kill
    assert "Traceback" not in out and len(out.strip().splitlines()) <= 12, out
    flat = " ".join(out.split())  # the console may wrap long lines
    assert "stopped: cannot write to Neo4j" in flat, out
    assert "resume with: kg eval run --run-id lost-db" in flat, out
    assert str(ledger) in out.replace("\n", ""), out
    records = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert sum(r["attempts"] for r in records) == len(llm_server.requests)
