"""`kg build --batch` on the demo sample: every builder request goes out in a provider batch
(tests/llm_batch_server.py), stage by stage, and the build equals the direct build on the same
replies; a build killed while a batch is in flight resumes by polling it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from build_replies import add_build_model, user_text
from cli_runs import kill_when
from llm_batch_server import BatchTestServer

from construction.pipeline.config import BuildConfig
from construction.pipeline.llm_route import make_build_llm
from construction.pipeline.runner import BuildPlan, build_domain

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "demo" / "build"


def valid_question(body):
    names = re.findall(r"^- topic_\d+ = (.*?):", user_text(body), re.M)
    return {
        "question": f"How is {names[0]} connected to {names[-1]} through its mechanism?",
        "theme": "Mechanism",
    }


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("KG_LLM_BATCH_POLL_S", "0.02")
    monkeypatch.setenv("KG_LLM_BATCH_POLL_MAX_S", "0.1")
    with BatchTestServer() as s:
        add_build_model(s, question=valid_question)
        yield s


def build(store, server, domain: str, batch: bool):
    llm = make_build_llm(config=server.config(role="builder", batch=batch, concurrency=4))
    plan = BuildPlan(
        config=BuildConfig(domain=domain),
        chunk_paths=[DEMO / "chunks.json"],
        palette_path=DEMO / "palette.json",
    )
    return build_domain(store, plan, llm=llm)


def questions(store, domain: str) -> list[tuple[str, str]]:
    rows = store.run_text(
        "MATCH (q:Question {domain: $d}) RETURN q.text AS text, q.theme AS theme", d=domain
    )
    return sorted((r["text"], r["theme"]) for r in rows)


def _what(report) -> tuple:
    """What a stage did, without its timings."""
    counts = {k: v for k, v in report.counts.items() if not k.endswith("_ms")}
    return report.stage, report.items, report.written, report.rejected, counts


def test_batch_build_equals_the_direct_build(store, server):
    direct = build(store, server, "demo_direct", batch=False)
    assert direct.status == "done"
    sent = len(server.requests)
    batched = build(store, server, "demo_batch", batch=True)
    assert batched.status == "done", batched.stages
    new = server.requests[sent:]
    assert new and all("x-batch-id" in r.headers for r in new)  # nothing asked directly
    # one batch per model stage: facts, summary, relations, question, evidence
    assert server.creates == 5
    assert len(server.submitted_ids) == len(set(server.submitted_ids))
    assert batched.summary == direct.summary
    assert questions(store, "demo_batch") == questions(store, "demo_direct")
    for a, b in zip(direct.stages, batched.stages, strict=True):
        assert _what(a) == _what(b)
    states = store.run_text(
        "MATCH (b:LLMBatch {scope: 'build:demo_batch'}) RETURN b.state AS s, b.closed AS c"
    )
    assert [(r["s"], r["c"]) for r in states] == [("completed", True)] * 5


def test_killed_build_resumes_by_polling_its_batch(store, server, tmp_path):
    settings = store.settings
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "KG_LLM_BATCH_POLL_S": "0.05",
        "KG_LLM_BATCH_POLL_MAX_S": "0.2",
        "KG_BOLT_PORT": str(settings.bolt_port),
    }
    cmd = [
        sys.executable,
        "-m",
        "kg.cli.main",
        "build",
        "demo_killed",
        "--chunks",
        str(DEMO / "chunks.json"),
        "--palette",
        str(DEMO / "palette.json"),
        "--model",
        "test-model",
        "--base-url",
        server.base_url,
        "--no-cache",
        "--batch",
        "--json",
    ]
    server.hold()
    kill_when(cmd, env, lambda: server.creates == 1 and server.polls >= 3)
    server.release()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result["status"] == "done" and result["summary"]["questions"] > 0
    assert server.creates == 5  # the facts batch polled again, never sent twice
    assert len(server.submitted_ids) == len(set(server.submitted_ids))
