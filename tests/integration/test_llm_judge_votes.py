"""A voting, per-path LLM judge on a real Neo4j through the scripted server (real HTTP):
`kg eval run --judge-votes` stores each verdict's votes and the run's self-agreement;
`kg judge validate --judge-votes --judge-granularity path` reports and stores it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runs import import_demo_sample, point_at, run
from llm_server import ANSWER_MARKER, PATHS_MARKER, add_eval_model, scripted_path_verdicts

from evaluation.judges.validation import latest_validations
from evaluation.judges.votes import SelfAgreement, self_agreement
from evaluation.reporting.report import build_report
from evaluation.runs.store import get_run

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "demo" / "judge" / "gold.jsonl"


def _flaky(body):
    """Verdicts that change with the vote (the request's seed) and the path's neutral id."""
    seed = int(body.get("seed", 0))
    return scripted_path_verdicts(body, lambda pid: (int(pid[1:]) + seed) % 3 != 0)


@pytest.fixture
def kg(store, llm_server, monkeypatch):
    point_at(store, monkeypatch)
    monkeypatch.setenv("EVAL_TEST_KEY", "sk-test-votes")
    import_demo_sample()
    return run


def test_eval_run_with_votes_stores_votes_and_self_agreement(kg, store, llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_flaky)
    add_eval_model(llm_server)
    common = ["--base-url", llm_server.base_url, "--api-key-env", "EVAL_TEST_KEY", "--no-cache"]
    out = kg(
        "eval",
        "run",
        "--model",
        "test-model",
        "--judge",
        "judge-model",
        "--judge-votes",
        "3",
        "--limit",
        "2",
        "--relevancy-n",
        "0",
        "--run-id",
        "votes-run",
        *common,
    ).output
    assert "self-agreement over 3 votes" in out
    assert len(llm_server.requests_matching(PATHS_MARKER)) == 2 * 3
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == 2
    run = get_run(store, "votes-run")
    assert run.judge == "llm:judge-model[votes=3]"
    stored = SelfAgreement.model_validate_json(run.judge_self_agreement)
    rows = store.run_text(
        "MATCH (v:Verdict {run: 'votes-run'}) RETURN v.votes AS votes, v.present AS present"
    )
    assert rows and all(len(r["votes"]) == 3 for r in rows)
    assert all(r["present"] == (sum(r["votes"]) >= 2) for r in rows)  # the majority is scored
    assert stored == self_agreement([r["votes"] for r in rows], 3)
    assert stored.decisions == len(rows) and stored.unanimous < len(rows)
    report = build_report(store, ["votes-run"], out_dir=None, plots=False)
    assert stored.line() in report.tables["votes-run_by_hop"].notes


def test_validate_a_voting_per_path_judge(kg, store, llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_flaky)
    args = ["--gold", str(GOLD), "--judge", "judge-model", "--base-url", llm_server.base_url]
    args += ["--api-key-env", "EVAL_TEST_KEY", "--no-cache", "--limit", "2"]
    out = json.loads(
        kg(
            "judge",
            "validate",
            *args,
            "--judge-votes",
            "3",
            "--judge-granularity",
            "path",
            "--format",
            "json",
        ).stdout
    )
    checked = [r.body for r in llm_server.requests_matching(PATHS_MARKER)]
    paths = out["overall"]["paths"]
    assert len(checked) == paths * 3  # one call per path and vote
    assert all(b["response_format"]["json_schema"]["schema"]["required"] == ["P1"] for b in checked)
    assert out["judge"] == "llm:judge-model[path,votes=3]" and out["failed_paths"] == 0
    sa = out["self_agreement"]
    assert sa["votes"] == 3 and sa["decisions"] == paths
    assert (
        latest_validations(store, [out["judge"]])[out["judge"]]["self_agreement"]
        == (sa["fleiss_kappa"])
    )
    table = kg("judge", "validate", *args, "--judge-votes", "3", "--judge-granularity", "path")
    assert "self-agreement over 3 votes" in table.output


def test_votes_are_refused_for_an_offline_judge(kg):
    out = kg("judge", "validate", "--gold", str(GOLD), "--judge-votes", "3", code=1).output
    assert "need an LLM judge" in out
