"""`kg eval plan` against a real run: the plan's calls per role are the calls the scripted
server then receives from `kg eval run` with the same options; the plan calls nothing and
writes nothing; `kg eval run` refuses a plan over --max-cost before any call."""

from __future__ import annotations

import json

import pytest
from llm_server import ANSWER_MARKER, FAITH_MARKER, PATHS_MARKER, RELEVANCY_MARKER, add_eval_model
from typer.testing import CliRunner

from kg.cli.main import app

pytestmark = pytest.mark.integration
RESPONDER_ROLES = ("responder", "samples", "contexts", "formulations", "decoders")


def _options(llm_server, *extra: str, model: str = "answer-model") -> list[str]:
    return [
        "--model",
        model,
        "--base-url",
        llm_server.base_url,
        "--api-key-env",
        "PLAN_TEST_KEY",
        "--judge",
        "judge-model",
        "--no-cache",
        "--domain",
        "physics",
        "--limit",
        "3",
        *extra,
    ]


def _nodes(store) -> int:
    return store.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]


@pytest.mark.parametrize(
    "extra",
    [
        ["--samples", "2", "--contexts", "1", "--formulations", "neutral-1", "--judge-votes", "3"],
        ["--judge-granularity", "path", "--relevancy-n", "0", "--decoders", "temperature=0.5"],
    ],
    ids=["variants-votes", "per-path"],
)
def test_plan_counts_are_the_calls_of_the_run(bench, llm_server, monkeypatch, extra):
    monkeypatch.setenv("PLAN_TEST_KEY", "sk-test")
    add_eval_model(llm_server)
    runner = CliRunner()
    before = _nodes(bench)
    opts = _options(llm_server, *extra, model=f"answer-{extra[0]}")  # no earlier answers
    res = runner.invoke(app, ["eval", "plan", *opts, "--json"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.output)
    assert llm_server.requests == [] and _nodes(bench) == before  # nothing called or written
    roles = {r["role"]: r for r in plan["roles"]}
    run_id = f"plan-{'-'.join(extra)[:40]}"
    res = runner.invoke(app, ["eval", "run", *opts, "--run-id", run_id])
    assert res.exit_code == 0, res.output
    assert "plan: " in res.output and f"{plan['answers']} answer(s)" in res.output
    received = {
        "answers": len(llm_server.requests_matching(ANSWER_MARKER)),
        "path judge": len(llm_server.requests_matching(PATHS_MARKER)),
        "claims judge": len(llm_server.requests_matching(FAITH_MARKER)),
        "relevancy": len(llm_server.requests_matching(RELEVANCY_MARKER)),
    }
    planned = {
        "answers": sum(roles[r]["calls"] for r in RESPONDER_ROLES if r in roles),
        **{r: roles[r]["calls"] if r in roles else 0 for r in received if r != "answers"},
    }
    assert planned == received
    assert len(llm_server.requests) == plan["answers"] + sum(
        planned[r] for r in received if r != "answers"
    )
    assert all(roles[r]["prompt_tokens"] > 0 for r in roles)
    # the plan of the finished run: nothing left to ask
    res = runner.invoke(app, ["eval", "plan", *opts, "--run-id", run_id, "--json"])
    done = json.loads(res.output)
    assert done["answers"] == 0 and done["done_before"] == plan["answers"]
    # a new run of the same responder: its replies are sized by the stored answers' usage
    assert roles["responder"]["completion_source"] == "assumed"
    mean = bench.run_text(
        "MATCH (a:Answer {run: $run}) RETURN avg(a.tokens) AS m, count(a) AS n", run=run_id
    )[0]
    res = runner.invoke(app, ["eval", "plan", *opts, "--hop", "1", "--json"])
    again = {r["role"]: r for r in json.loads(res.output)["roles"]}["responder"]
    assert again["completion_source"].startswith("observed (")
    assert mean["n"] > 0 and again["completion_tokens"] == again["calls"] * round(mean["m"])


def test_run_over_max_cost_is_refused_before_any_call(bench, llm_server, monkeypatch, tmp_path):
    monkeypatch.setenv("PLAN_TEST_KEY", "sk-test")
    add_eval_model(llm_server)
    prices = tmp_path / "prices.json"
    price = {"input_per_mtok": 10.0, "output_per_mtok": 30.0}
    prices.write_text(json.dumps({"answer-model": price, "judge-model": price}))
    opts = _options(llm_server, "--prices", str(prices))
    runner = CliRunner()
    res = runner.invoke(app, ["eval", "plan", *opts, "--json"])
    plan = json.loads(res.output)
    assert plan["cost"] > 0 and plan["unpriced"] == []
    before = _nodes(bench)
    limit = plan["cost"] / 2
    res = runner.invoke(app, ["eval", "run", *opts, "--max-cost", str(limit), "--run-id", "dear"])
    assert res.exit_code != 0
    assert "estimated cost" in res.output and "--max-cost" in res.output
    assert f"${plan['cost']:.4f}" in res.output and f"${limit:.4f}" in res.output
    assert llm_server.requests == [] and _nodes(bench) == before
    res = runner.invoke(app, ["eval", "plan", *opts])  # the table names every role
    assert res.exit_code == 0 and "| path judge | judge-model |" in res.output


def test_plan_with_batch_shows_the_batch_price(bench, llm_server, monkeypatch, tmp_path):
    monkeypatch.setenv("PLAN_TEST_KEY", "sk-test")
    prices = tmp_path / "prices.json"
    price = {"input_per_mtok": 10.0, "output_per_mtok": 30.0}
    prices.write_text(
        json.dumps({"answer-model": price, "judge-model": {**price, "batch_factor": 0.4}})
    )
    opts = _options(llm_server, "--prices", str(prices))
    runner = CliRunner()
    plain = json.loads(runner.invoke(app, ["eval", "plan", *opts, "--json"]).output)
    batch = json.loads(runner.invoke(app, ["eval", "plan", *opts, "--batch", "--json"]).output)
    assert batch["batch"] and not plain["batch"]
    for a, b in zip(plain["roles"], batch["roles"], strict=True):
        factor = 0.5 if a["model"] == "answer-model" else 0.4  # the default, or the table's
        assert b["cost"] == pytest.approx(a["cost"] * factor)
    res = runner.invoke(app, ["eval", "plan", *opts, "--batch"])
    assert res.exit_code == 0 and "at the batch price" in res.output
    assert llm_server.requests == []


def test_a_rag_dense_plan_writes_no_fact_vectors_and_counts_the_run(bench, llm_server, monkeypatch):
    # the run stores the vectors it computes (for the vector index); the plan writes nothing
    monkeypatch.setenv("PLAN_TEST_KEY", "sk-test")
    add_eval_model(llm_server)
    runner = CliRunner()
    without = "MATCH (f:Fact {domain: 'physics'}) WHERE f.embedding IS NULL RETURN count(f) AS n"
    missing = bench.run_text(without)[0]["n"]
    opts = _options(llm_server, "--setting", "rag-dense", "--relevancy-n", "0", model="dense")
    res = runner.invoke(app, ["eval", "plan", *opts, "--json"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.output)
    assert llm_server.requests == [] and bench.run_text(without)[0]["n"] == missing
    res = runner.invoke(app, ["eval", "run", *opts, "--run-id", "plan-rag-dense"])
    assert res.exit_code == 0, res.output
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == plan["answers"] == 3
    assert missing > 0 and bench.run_text(without)[0]["n"] == 0  # the run stored them
