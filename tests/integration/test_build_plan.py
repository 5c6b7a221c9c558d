"""`kg build --plan` against real builds: the calls the plan counts exact for a stage are the
requests the scripted server then receives from `kg build` with the same options, step by step
(a fresh build, then reruns from each model stage on); the plan calls nothing and writes
nothing; `kg build` refuses a plan over --max-cost before any request and any write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from build_replies import BUILD_MARKERS, add_build_model
from typer.testing import CliRunner

from kg.cli.main import app

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parents[2] / "demo" / "build"
DOMAIN = "demo_plan"


def _options(server, *extra: str) -> list[str]:
    return [
        "--model",
        "test-model",
        "--base-url",
        server.base_url,
        "--api-key-env",
        "PLAN_TEST_KEY",
        "--no-cache",
        "--allow-partial",  # the scripted question model's first reply is rejected
        *extra,
    ]


def _nodes(store) -> int:
    return store.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]


def _plan(runner: CliRunner, store, server, args: list[str]) -> dict:
    """The plan (its roles by name under "by_role"); it sent no request and wrote nothing."""
    before, sent = _nodes(store), len(server.requests)
    res = runner.invoke(app, ["build", *args, "--plan", "--json"])
    assert res.exit_code == 0, res.output
    assert len(server.requests) == sent and _nodes(store) == before
    plan = json.loads(res.output)
    return plan | {"by_role": {r["role"]: r for r in plan["roles"]}}


def _requests(server, since: int) -> dict[str, int]:
    """Requests per build stage since request number `since`, by each prompt's marker."""
    texts = [r.text for r in server.requests[since:]]
    return {stage: sum(marker in t for t in texts) for stage, marker in BUILD_MARKERS.items()}


def test_exact_plan_counts_are_the_builds_requests(store, llm_server, monkeypatch):
    monkeypatch.setenv("PLAN_TEST_KEY", "sk-test")
    add_build_model(llm_server)
    runner = CliRunner()
    chunks = ["--chunks", str(DEMO / "chunks.json"), "--palette", str(DEMO / "palette.json")]
    n_chunks = len(json.loads((DEMO / "chunks.json").read_text()))
    steps = [
        [DOMAIN, *chunks],  # fresh: facts exact, the later stages estimated
        [DOMAIN, *chunks],  # resumed: the one rejected question is asked again
        [DOMAIN, "--from-stage", "concepts"],
        [DOMAIN, "--from-stage", "relations"],
        [DOMAIN, "--from-stage", "questions"],
        [DOMAIN, "--from-stage", "evidence"],
    ]
    exact_seen: dict[str, int] = {}
    for i, step in enumerate(steps):
        args = [*step, *_options(llm_server)]
        roles = _plan(runner, store, llm_server, args)["by_role"]
        if i == 0:
            assert roles["facts"]["calls"] == n_chunks
            assert roles["facts"]["calls_source"] == "exact"
            assert all(
                r["calls_source"].startswith("estimated") for s, r in roles.items() if s != "facts"
            )
        elif i == 1:  # everything up to the questions is done: exact, nothing to ask
            assert [roles[s]["calls"] for s in ("facts", "concepts", "relations")] == [0, 0, 0]
            assert roles["questions"]["calls"] == 1
            assert roles["questions"]["calls_source"] == "exact"
            assert roles["evidence"]["calls_source"].startswith("estimated")
        else:  # the rerun's first stage is exact: the graph holds its items
            first = step[-1]
            assert roles[first]["calls_source"] == "exact" and roles[first]["calls"] > 0
        since = len(llm_server.requests)
        res = runner.invoke(app, ["build", *args])
        assert res.exit_code in (0, 2), res.output  # 2: the rejected question (partial)
        assert res.output.startswith("plan: build of demo_plan")
        sent = _requests(llm_server, since)
        for stage, role in roles.items():
            assert role["prompt_tokens"] > 0 or role["calls"] == 0
            if role["calls_source"] == "exact":
                assert sent[stage] == role["calls"], (step, stage, sent, role)
                exact_seen[stage] = max(exact_seen.get(stage, 0), role["calls"])
    # Every model stage was counted exact at least once, and asked at least once.
    assert set(exact_seen) == set(BUILD_MARKERS) and all(exact_seen.values())
    # A fresh build of the same chunks is estimated from the first build's stage reports: its
    # items per chunk give that build's counts again.
    again = _plan(runner, store, llm_server, [f"{DOMAIN}_again", *chunks, *_options(llm_server)])
    for stage in ("concepts", "relations"):
        assert "1 earlier build(s) of test-model" in again["by_role"][stage]["calls_source"]
        assert again["by_role"][stage]["calls"] == exact_seen[stage]
        assert again["by_role"][stage]["completion_source"].startswith("observed (")
    assert again["latency_source"].startswith("observed (") and again["latency_s"] > 0


def test_build_over_max_cost_is_refused_before_any_request(
    store, llm_server, monkeypatch, tmp_path
):
    monkeypatch.setenv("PLAN_TEST_KEY", "sk-test")
    add_build_model(llm_server)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"test-model": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}))
    args = [
        f"{DOMAIN}_dear",
        "--chunks",
        str(DEMO / "chunks.json"),
        "--palette",
        str(DEMO / "palette.json"),
        *_options(llm_server, "--prices", str(prices), "--max-tokens", "400"),
    ]
    runner = CliRunner()
    res = runner.invoke(app, ["build", *args, "--plan", "--json"])
    plan = json.loads(res.output)
    assert plan["cost"] > 0 and plan["unpriced"] == []
    assert {r["completion_source"] for r in plan["roles"]} == {"--max-tokens"}
    assert all(r["completion_tokens"] == 400 * r["calls"] for r in plan["roles"])
    before = _nodes(store)
    limit = plan["cost"] / 2
    res = runner.invoke(app, ["build", *args, "--max-cost", str(limit)])
    assert res.exit_code != 0
    assert f"${plan['cost']:.4f}" in res.output and f"--max-cost ${limit:.4f}" in res.output
    assert llm_server.requests == [] and _nodes(store) == before
    res = runner.invoke(app, ["build", *args, "--plan"])  # the table names every stage
    assert res.exit_code == 0 and "| relations | test-model |" in res.output
    assert "estimated: " in res.output and "per chunk" in res.output
