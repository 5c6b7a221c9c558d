"""The chaos benchmark's concurrent-write and signal cases (issue 30), run by CI against the
real Neo4j: `kg domain delete`, `kg build --replace --yes` and a build of a domain while an
eval reads it; an eval while a build holds its domain; SIGTERM/SIGINT to an eval and a build;
kill -9 of an eval. Each case's processes are real `kg` commands; the model is the scripted
test server, paused while a second process meets the eval mid-run.

Targets: 0 runs `done` over missing questions, 0 stale `running` records, 0 leases left."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import pytest
from llm_server import add_eval_model

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import chaos  # noqa: E402 - the benchmark's cases, one copy


def test_concurrent_writes_and_signals_never_leave_done_over_missing_or_stale_running(
    bench, llm_server, tmp_path
):
    add_eval_model(llm_server, delay=0.3)  # an eval of 12 questions outlives its first batch
    chunks = tmp_path / "chunks.json"
    chunks.write_text(json.dumps(json.loads((chaos.DEMO / "chunks.json").read_text())[:10]))

    @contextlib.contextmanager
    def hold():
        llm_server.pause()
        try:
            yield
        finally:
            llm_server.resume()

    env = {**os.environ, "OPENAI_API_KEY": "test-key", "COLUMNS": "400"}
    cases = chaos.concurrent_cases(
        bench, llm_server.base_url, env, limit=12, build_chunks=chunks, hold=hold, real_build=False
    )
    failed = [c for c in cases if not c["ok"]]
    assert not failed, json.dumps(failed, indent=2)
    assert len(cases) == 8
    counts = chaos.integrity_counts(bench, env)
    assert counts == {
        "done_over_missing_questions": 0,
        "stale_running_shown_by_readers": 0,  # the kill -9 run reads interrupted
        "live_leases_left": 0,
    }
