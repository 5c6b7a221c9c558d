"""`kg eval run` on a fleet of endpoints (real Neo4j, real HTTP): two scripted servers and a
dead address in a fleet file; every answer arrives, each call is counted once, and the Run and
the report say what each endpoint did. Then the same with two real local model servers
(`kg llm up --port` twice, SmolLM2-135M) and a dead address."""

from __future__ import annotations

import json
import socket

import pytest
from llm_server import LLMTestServer, add_eval_model
from typer.testing import CliRunner

from evaluation.reporting.html_report import eval_payload
from evaluation.reporting.report import build_report
from evaluation.runs.store import get_run
from kg.cli.main import app
from kg.llm import LLMClient, LLMConfig, LLMRequest
from kg.llm.fleet_file import Endpoint

pytestmark = pytest.mark.integration
SECRET = "sk-fleet-never-store-me-77"


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_eval_run_on_a_fleet_file_with_a_dead_endpoint(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("FLEET_B_KEY", SECRET)
    dead = _dead_url()
    with LLMTestServer() as a, LLMTestServer() as b:
        add_eval_model(a)
        add_eval_model(b)
        fleet = tmp_path / "fleet.yaml"
        fleet.write_text(
            "endpoints:\n"
            f"  - base_url: {dead}\n"
            f"  - base_url: {a.base_url}\n"
            f"  - base_url: {b.base_url}\n"
            "    api_key_env: FLEET_B_KEY\n"
        )
        args = ["eval", "run", "--model", "test-model", "--judge", "judge-model"]
        args += ["--fleet", str(fleet), "--domain", "physics", "--limit", "6"]
        args += ["--setting", "oracle", "--run-id", "fleet-run", "--concurrency", "2"]
        res = CliRunner().invoke(app, [*args, "--no-cache"])
        assert res.exit_code == 0, res.output
        served = a.calls + b.calls
        a_url, b_url = a.base_url, b.base_url
        assert {r.headers["authorization"] for r in b.requests} == {f"Bearer {SECRET}"}
    assert "endpoint" in res.output and dead in res.output
    run = get_run(bench, "fleet-run")
    assert run.status == "done"
    # 6 questions x (answer, paths, claims, relevancy): each counted once, all served
    assert run.calls == 24 == served
    rows = {(e["role"], e["base_url"]): e for e in run.endpoints}
    assert len(rows) == 6  # 3 endpoints x 2 roles
    for role in ("responder", "judge"):
        assert rows[(role, dead)]["answered"] == 0 and rows[(role, dead)]["errors"] >= 1
        assert rows[(role, dead)]["cooldowns"] >= 1
        assert rows[(role, a_url)]["answered"] > 0 and rows[(role, b_url)]["answered"] > 0
    answered = sum(e["answered"] for e in run.endpoints)
    assert answered == 24
    report = build_report(bench, ["fleet-run"], plots=False)
    table = report.tables["fleet-run_endpoints"]
    assert len(table.rows) == 6 and "| judge |" in table.to_markdown()
    page = eval_payload(bench, ["fleet-run"], plots=False)  # the HTML report's data
    shown = [t for t in page["tables"] if t["kind"] == "endpoints"]
    assert len(shown) == 1 and shown[0]["group"] == "fleet-run" and len(shown[0]["rows"]) == 6
    stored = json.dumps(bench.run_text("MATCH (r:Run) RETURN properties(r) AS p"), default=str)
    assert SECRET not in stored and "FLEET_B_KEY" in stored


@pytest.mark.local_llm
def test_two_real_local_model_servers_and_a_dead_one(local_llm):
    """`kg llm up --port` on the session's port (already up) and the next one; a handful of
    short requests, one slot and one thread per server (2-core machine)."""
    from kg.llm.local import get_local_settings, server

    ports = [local_llm.port, local_llm.port + 1]
    started = []
    try:
        for port in ports:
            before = server.status(get_local_settings(port=port)).state
            res = CliRunner().invoke(app, ["llm", "up", "--port", str(port), "--threads", "1"])
            assert res.exit_code == 0, res.output
            if before is not server.State.RUNNING:
                started.append(port)
        urls = [f"http://127.0.0.1:{p}/v1" for p in ports]
        dead = _dead_url()
        cfg = LLMConfig(
            model="local/smollm2-135m",
            role="responder",
            cache=False,
            max_tokens=8,
            backoff_base_s=0.05,
            endpoints=[
                Endpoint(base_url=urls[0]),
                Endpoint(base_url=dead),
                Endpoint(base_url=urls[1]),
            ],
        )
        client = LLMClient(cfg)
        # each server's one slot is its cap (not --concurrency); the dead one: the default
        assert [e.max_in_flight for e in client.config.endpoints] == [1, 1, 1]
        reqs = [
            LLMRequest(messages=[{"role": "user", "content": f"Say a word about number {i}."}])
            for i in range(6)
        ]
        replies = client.run_sync(client.complete_many(reqs, return_exceptions=True))
        assert all(not isinstance(r, BaseException) for r in replies), replies
        assert all(r.usage.completion_tokens > 0 for r in replies)  # the real model answered
        stats = {s["base_url"]: s for s in client.endpoint_stats()}
        assert stats[urls[0]]["answered"] > 0 and stats[urls[1]]["answered"] > 0
        assert stats[urls[0]]["answered"] + stats[urls[1]]["answered"] == 6
        assert stats[dead]["answered"] == 0 and stats[dead]["cooldowns"] >= 1
        assert client.ledger.calls == 6
    finally:
        for port in started:
            server.stop(get_local_settings(port=port))
