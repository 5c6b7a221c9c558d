"""The LLM route on a real Neo4j, through the local OpenAI-compatible server: responder and
judge models, settings and strategies, re-judging stored answers, judge agreement, failures."""

from __future__ import annotations

import json

import pytest
from llm_server import (
    ANSWER_MARKER,
    FAITH_MARKER,
    PATHS_MARKER,
    RELEVANCY_MARKER,
    add_eval_model,
    scripted_path_verdicts,
)

from evaluation.models import Setting, Strategy
from evaluation.reporting.report import judge_agreement
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import get_run
from evaluation.scoring.question_scores import run_scores

pytestmark = pytest.mark.integration
SECRET = "sk-test-never-store-me-42"


@pytest.fixture
def model(llm_server, monkeypatch, tmp_path):
    monkeypatch.setenv("EVAL_TEST_KEY", SECRET)
    add_eval_model(llm_server)

    def cfg(role: str, **kw):
        values = {
            "role": role,
            "api_key_env": "EVAL_TEST_KEY",
            "cache": True,
            "cache_path": tmp_path / "cache.sqlite",
            "concurrency": 4,
            **kw,
        }
        return llm_server.config(**values)

    return cfg


def spec(model, **kw) -> RunSpec:
    values = {
        "kind": "eval",
        "responder": "llm",
        "responder_llm": model("responder"),
        "judge": "llm",
        "judge_llm": model("judge", model="judge-model"),
        "domains": ["physics"],
        "limit": 6,
        "setting": Setting.oracle,
    }
    values.update(kw)
    return RunSpec(**values)


def test_llm_run_end_to_end(bench, llm_server, model):
    summary = execute(bench, spec(model, run_id="llm-oracle"))
    assert summary.status == "done" and summary.completed == 6, summary.errors
    kinds = {
        m: len(llm_server.requests_matching(m))
        for m in (ANSWER_MARKER, PATHS_MARKER, FAITH_MARKER, RELEVANCY_MARKER)
    }
    assert kinds == {ANSWER_MARKER: 6, PATHS_MARKER: 6, FAITH_MARKER: 6, RELEVANCY_MARKER: 6}
    # Oracle: the focused evidence is in the answer prompt; the judge sees no target marker
    answer_req = llm_server.requests_matching(ANSWER_MARKER)[0]
    assert "Reference documents" in answer_req.text
    judge_req = llm_server.requests_matching(PATHS_MARKER)[0]
    assert "target" not in judge_req.text.lower().split("checklist of paths:")[1]
    assert judge_req.body["model"] == "judge-model"

    run, scores = run_scores(bench, "llm-oracle")
    assert len(scores) == 6
    for s in scores:  # scripted judge: odd P-ids present, 1 of 2 claims supported
        assert 0 <= s.precision <= 1 and s.faithfulness == 0.5 and s.n_claims == 2
        assert s.tokens_source == "usage" and s.tokens > 0
        assert s.relevancy is not None and s.relevancy_method == "llm-questions"
    assert set(run.prompt_hashes) >= {
        "eval/answer_system",
        "eval/judge_paths",
        "eval/judge_faithfulness",
        "llm/repair",
    }
    assert run.calls == 24 and run.tokens_in > 0 and run.tokens_out > 0
    stored = json.dumps(
        bench.run_text(
            "MATCH (n) WHERE n:Run OR n:Answer OR n:Verdict OR n:Claim RETURN properties(n) AS p"
        ),
        default=str,
    )
    assert SECRET not in stored and "EVAL_TEST_KEY" in stored  # the env var name only
    n_claims = bench.run_text(
        "MATCH (c:Claim {run: 'llm-oracle'})-[:SUPPORTED_BY]->(f:Fact) RETURN count(c) AS n"
    )[0]["n"]
    assert n_claims == 6


def test_warm_cache_rerun_makes_no_calls(bench, llm_server, model):
    execute(bench, spec(model, run_id="cache-a"))
    calls = len(llm_server.requests)
    again = execute(bench, spec(model, run_id="cache-b"))  # same config, new run id
    assert again.completed == 6 and again.calls == 0 and again.cached_calls == 24
    assert len(llm_server.requests) == calls


def test_rejudge_stored_answers_and_agreement(bench, llm_server, model):
    execute(bench, spec(model, run_id="src", judge="embedding", judge_llm=None))
    answers_before = len(llm_server.requests_matching(ANSWER_MARKER))
    j = execute(
        bench,
        RunSpec(
            kind="judge",
            source_run="src",
            run_id="src-llm-judge",
            judge="llm",
            judge_llm=model("judge"),
            relevancy_n=0,
        ),
    )
    assert j.status == "done" and j.completed == 6
    assert len(llm_server.requests_matching(ANSWER_MARKER)) == answers_before  # not re-asked
    assert bench.node_counts()["Answer"] >= 6
    assert get_run(bench, "src-llm-judge").source_run == "src"
    summary, confusion = judge_agreement(bench, "src", "src-llm-judge")
    overall = summary.rows[-1]
    assert overall["decisions"] > 0 and 0 <= overall["agreement %"] <= 100
    assert -1 <= overall["Cohen's kappa"] <= 1


def test_settings_and_strategies_build_prompts(bench, llm_server, model):
    from evaluation.responders.contexts import ContextOptions, build_contexts
    from evaluation.runs.questions import load_questions

    qs, _ = load_questions(bench, domains=["physics"], limit=4)
    for setting in Setting:
        ctx = build_contexts(bench, qs, ContextOptions(setting, noise=3, seed=1))
        for q in qs:
            docs = ctx[q.uid]
            if setting is Setting.base:
                assert docs == []
            elif setting is Setting.oracle:
                assert [d.uid for d in docs] == [f.uid for f in q.evidence]
            elif setting is Setting.noisy:
                assert {f.uid for f in q.evidence} <= {d.uid for d in docs}
                assert len(docs) <= len(q.evidence) + 3
            else:  # RAG: Noisy's document count from the question's domain
                assert len(docs) == len(q.evidence) + 3
    assert (
        bench.run_text(
            "MATCH (f:Fact {domain: 'physics'}) WHERE f.embedding IS NULL RETURN count(f) AS n"
        )[0]["n"]
        == 0
    )  # dense RAG embedded them
    # --gt full: the evidence first, then every other fact of the question's concepts
    from evaluation.models import GroundTruth
    from evaluation.responders.contexts import ground_truth

    full = ground_truth(bench, qs, GroundTruth.full)
    for q in qs:
        assert full[q.uid][: len(q.evidence)] == q.evidence
        assert len(full[q.uid]) > len(q.evidence)
        assert len({f.uid for f in full[q.uid]}) == len(full[q.uid])
    # noisy is seeded
    a = build_contexts(bench, qs, ContextOptions(Setting.noisy, seed=7))
    b = build_contexts(bench, qs, ContextOptions(Setting.noisy, seed=7))
    assert a == b
    execute(
        bench,
        spec(
            model,
            run_id="neg",
            strategy=Strategy.negative,
            setting=Setting.rag_bm25,
            limit=1,
            relevancy_n=0,
        ),
    )
    text = llm_server.requests_matching(ANSWER_MARKER)[-1].text
    assert "Leave out every other perspective" in text and "Reference documents" in text


def test_judge_reply_missing_paths_fails_the_question_cleanly(bench, llm_server, model):
    llm_server.reset()
    # this judge always forgets path P1, even after the repair request
    llm_server.add_rule(
        match=PATHS_MARKER,
        reply=lambda body: {
            "verdicts": [
                v for v in scripted_path_verdicts(body)["verdicts"] if v["path_id"] != "P1"
            ]
        },
    )
    add_eval_model(llm_server)
    s = execute(bench, spec(model, run_id="missing", limit=2, relevancy_n=0))
    assert s.status == "partial" and s.failed == 2 and s.completed == 0
    assert "P1" in s.errors[0] and "physics#" in s.errors[0]
    assert len(llm_server.requests_matching("could not be used")) == 2  # one repair each
    assert (
        bench.run_text("MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: 'missing'}) RETURN count(a) AS n")[
            0
        ]["n"]
        == 0
    )  # nothing half-written
    run = get_run(bench, "missing")
    assert run.status == "partial" and run.failed == 2 and run.errors


def test_rejected_and_duplicate_verdicts_are_counted(bench, llm_server, model):
    llm_server.reset()

    def noisy_judge(body):
        verdicts = scripted_path_verdicts(body)["verdicts"]
        extra = [
            {"path_id": "P99", "present": True, "reason": "no such path"},
            {**verdicts[0], "present": not verdicts[0]["present"]},
        ]
        return {"verdicts": verdicts + extra}

    llm_server.add_rule(match=PATHS_MARKER, reply=noisy_judge)
    add_eval_model(llm_server)
    execute(bench, spec(model, run_id="noisy-judge", limit=2, relevancy_n=0))
    _, scores = run_scores(bench, "noisy-judge")
    assert [(s.rejected, s.duplicates) for s in scores] == [(1, 1), (1, 1)]


def test_max_cost_stops_the_run_and_a_rerun_resumes(bench, llm_server, model):
    from kg.llm import Price

    prices = {"test-model": Price(input_per_mtok=1000.0, output_per_mtok=1000.0)}
    cheap = spec(
        model,
        run_id="budget",
        limit=6,
        relevancy_n=0,
        judge="embedding",
        judge_llm=None,
        responder_llm=model("responder", prices=prices, max_cost=0.5, concurrency=1),
        workers=1,
    )
    # the ledger's stop while spending (a plan over the limit is refused before: test_eval_plan)
    s = execute(bench, cheap, refuse_over_budget=False)
    assert s.status == "interrupted" and "max-cost" in s.errors[0]
    assert 0 < s.completed < 6
    assert get_run(bench, "budget").status == "interrupted"
    more = cheap.model_copy(
        update={"responder_llm": model("responder", prices=prices, max_cost=100.0)}
    )
    again = execute(bench, more)
    assert again.status == "done" and again.done_before == s.completed
    assert again.completed == 6 - s.completed


def test_authentication_failure_stops_the_run(bench, llm_server, model):
    llm_server.reset()
    llm_server.add_rule(match=ANSWER_MARKER, status=401)
    s = execute(bench, spec(model, run_id="no-auth", limit=4, relevancy_n=0, workers=1))
    assert s.status == "interrupted" and "AuthenticationError" in s.errors[0]
    assert s.completed == 0 and len(llm_server.requests) == 1  # no pointless retries
