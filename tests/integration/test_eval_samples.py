"""Sampled answers (FRS) on a real Neo4j through the scripted server: N samples per question,
each with its own seed, token logprobs summarised into a stored confidence, resume and cache."""

from __future__ import annotations

import json
import math
import re

import pytest
from llm_server import (
    ANSWER_MARKER,
    FAITH_MARKER,
    PATHS_MARKER,
    RELEVANCY_MARKER,
    scripted_answer,
    scripted_claims,
    scripted_path_verdicts,
    scripted_relevancy,
)

from evaluation.profiles.confidence import LOW_TOKEN_LOGPROB
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.scoring.question_scores import run_scores
from kg.ids import answer_uid

pytestmark = pytest.mark.integration
SAMPLES = 3
# per sample (= seed, run seed 0): the token logprobs the scripted responder returns
LOGPROBS = {0: [-2.0, -3.0, -1.0], 1: [-0.1, -0.3], 2: [-1.0, -0.5, -0.2, -0.3]}
# per sample: which checklist paths the scripted judge finds in the answer
PRESENT = {0: lambda pid: False, 1: lambda pid: True, 2: lambda pid: pid == "P1"}
_SAMPLE = re.compile(r"\[sample (\d+)\]")


def add_sampling_model(server, logprobs=True) -> None:
    """Responder: the sample index (its seed) in the answer and known logprobs per sample;
    judge: verdicts that depend on the sample named in the answer it judges."""

    def judge(body):
        found = _SAMPLE.search(json.dumps(body))
        return scripted_path_verdicts(body, PRESENT[int(found.group(1)) if found else 0])

    server.add_rule(match=PATHS_MARKER, reply=judge)
    server.add_rule(match=FAITH_MARKER, reply=scripted_claims)
    server.add_rule(match=RELEVANCY_MARKER, reply=scripted_relevancy)
    server.add_rule(
        match=ANSWER_MARKER,
        reply=lambda body: f"[sample {body.get('seed', 0)}] " + scripted_answer(body),
        logprobs=(lambda body: LOGPROBS[body.get("seed", 0)]) if logprobs else None,
    )


@pytest.fixture
def sampling(llm_server, tmp_path):
    add_sampling_model(llm_server)

    def cfg(role: str, **kw):
        values = {"role": role, "cache": True, "cache_path": tmp_path / "cache.sqlite", **kw}
        return llm_server.config(**values)

    return cfg


def spec(cfg, **kw) -> RunSpec:
    values = {
        "kind": "eval",
        "responder": "llm",
        "responder_llm": cfg("responder", temperature=0.7),
        "judge": "llm",
        "judge_llm": cfg("judge", model="judge-model"),
        "domains": ["physics"],
        "limit": 4,
        "samples": SAMPLES,
    }
    values.update(kw)
    return RunSpec(**values)


def _answers(bench, run: str) -> list[dict]:
    return bench.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $run}) MATCH (a)-[:FOR]->(q:Question) "
        "RETURN a.uid AS uid, q.uid AS question, properties(a) AS p",
        run=run,
    )


def test_samples_are_stored_with_variant_and_confidence(bench, llm_server, sampling):
    summary = execute(bench, spec(sampling, run_id="frs-a"))
    assert summary.status == "done" and summary.completed == 4 * SAMPLES, summary.errors
    answer_reqs = llm_server.requests_matching(ANSWER_MARKER)
    assert len(answer_reqs) == 4 * SAMPLES  # N samples = N calls
    assert sorted(r.body["seed"] for r in answer_reqs) == sorted(list(range(SAMPLES)) * 4)
    assert all(r.body["logprobs"] is True and r.body["temperature"] == 0.7 for r in answer_reqs)

    rows = _answers(bench, "frs-a")
    assert len(rows) == 4 * SAMPLES
    for row in rows:
        p, k = row["p"], row["p"]["sample"]
        # sample 0 keeps the uid an answer without variants has; the others their own
        want = answer_uid("frs-a", row["question"], {"sample": k} if k else None)
        assert row["uid"] == want
        assert p["text"].startswith(f"[sample {k}]")
        lps = LOGPROBS[k]
        assert math.isclose(p["confidence"], sum(lps) / len(lps))
        assert math.isclose(
            p["low_confidence_share"], sum(v < LOW_TOKEN_LOGPROB for v in lps) / len(lps)
        )
        assert p["logprob_tokens"] == len(lps)
        assert json.loads(p["decoder"]) == {"seed": k, "temperature": 0.7}

    # the report's per-question view is the first sample; all samples on request
    _, first = run_scores(bench, "frs-a")
    _, every = run_scores(bench, "frs-a", all_samples=True)
    assert len(first) == 4 and {s.sample for s in first} == {0}
    assert len(every) == 4 * SAMPLES
    assert all(s.pas == 0 and s.confidence == -2.0 for s in first)  # sample 0: nothing present


def test_sampled_run_uses_the_cache_and_resumes(bench, llm_server, sampling):
    execute(bench, spec(sampling, run_id="frs-b"))
    calls = len(llm_server.requests)
    again = execute(bench, spec(sampling, run_id="frs-c"))  # same config: every call cached
    assert again.completed == 4 * SAMPLES and again.calls == 0
    assert len(llm_server.requests) == calls
    # cached replies keep their logprobs: the confidences are stored again
    cached = {
        (r["question"], r["p"]["sample"]): r["p"]["confidence"] for r in _answers(bench, "frs-c")
    }
    first = {
        (r["question"], r["p"]["sample"]): r["p"]["confidence"] for r in _answers(bench, "frs-b")
    }
    assert cached == first and None not in cached.values()

    # an interrupted run: two sampled answers were never marked judged
    lost = bench.run_text(
        "MATCH (a:Answer {run: 'frs-b'})-[j:JUDGED_IN]->(:Run {uid: 'frs-b'}) "
        "WHERE a.sample > 0 WITH a, j ORDER BY a.uid LIMIT 2 DELETE j RETURN a.uid AS uid"
    )
    assert len(lost) == 2
    resumed = execute(bench, spec(sampling, run_id="frs-b"))
    assert resumed.done_before == 4 * SAMPLES - 2 and resumed.completed == 2
    assert len(_answers(bench, "frs-b")) == 4 * SAMPLES  # nothing duplicated


def test_one_sample_run_is_unchanged(bench, llm_server, sampling):
    summary = execute(bench, spec(sampling, run_id="frs-one", samples=1))
    assert summary.completed == 4
    reqs = llm_server.requests_matching(ANSWER_MARKER)
    assert reqs and all("seed" not in r.body and "logprobs" not in r.body for r in reqs)
    for row in _answers(bench, "frs-one"):
        assert row["uid"] == answer_uid("frs-one", row["question"])
        assert row["p"]["sample"] == 0 and row["p"].get("confidence") is None


# -- FRS aggregation in reports (known logprobs -> known top-K selection and scores) ---------
def _expected_pas_all_present(bench, run: str) -> dict[str, float]:
    """PAS of an answer in which every valid path is present: harmonic(|T|/|V|, 1)."""
    rows = bench.run_text(
        "MATCH (a:Answer {run: $run})-[:FOR]->(q:Question) WITH DISTINCT q "
        "RETURN q.uid AS q, COUNT { (q)-[:TARGET]->(:Path) } AS t, "
        "COUNT { (q)-[:TARGET|DISTRACTOR]->(:Path) } AS v",
        run=run,
    )
    return {r["q"]: 2 * (r["t"] / r["v"]) / (r["t"] / r["v"] + 1) for r in rows}


def test_frs_report_known_selection_and_scores(bench, sampling):
    from evaluation.profiles.frs import QuestionAggregates
    from evaluation.reporting.report import build_report

    execute(bench, spec(sampling, run_id="frs-r"))
    _, every = run_scores(bench, "frs-r", all_samples=True)
    # confidences: sample 0 -2.0, sample 1 -0.2, sample 2 -0.5 -> ranking 1, 2, 0
    assert QuestionAggregates(every, 33).selected == {q: [1] for q in {s.question for s in every}}
    assert QuestionAggregates(every, 50).selected == {
        q: [1, 2] for q in {s.question for s in every}
    }

    expected = _expected_pas_all_present(bench, "frs-r")
    pas2 = {s.question: s.pas for s in every if s.sample == 2}
    for k, want in (
        (33, sum(expected.values()) / len(expected) * 100),
        (50, sum((expected[q] + pas2[q]) / 2 for q in expected) / len(expected) * 100),
    ):
        rep = build_report(bench, ["frs-r"], top_k_percent=k, plots=False)
        rows = {r["aggregation"]: r for r in rep.tables["frs-r_frs"].rows}
        assert rows[f"top-{k}%"]["PAS"].mean == pytest.approx(want)
        assert rows["first sample"]["PAS"].mean == 0.0  # sample 0: nothing present
        assert rows[f"top-{k}%"]["PAS"].low <= want <= rows[f"top-{k}%"]["PAS"].high
        assert all(r["flag"] == "" for r in rows.values())
    # the per-hop tables stay the first sample's: one row per question
    assert rep.tables["frs-r_by_hop"].rows[-1]["n"] == 4


def test_frs_without_logprobs_falls_back_flagged(bench, llm_server, tmp_path):
    from evaluation.reporting.report import build_report, compare_runs_frs

    llm_server.reset()
    add_sampling_model(llm_server, logprobs=False)

    def cfg(role: str, **kw):
        return llm_server.config(role=role, cache=True, cache_path=tmp_path / "c.sqlite", **kw)

    execute(bench, spec(cfg, run_id="frs-nolp"))
    rep = build_report(bench, ["frs-nolp"], top_k_percent=50, plots=False)
    t = rep.tables["frs-nolp_frs"]
    rows = {r["aggregation"]: r for r in t.rows}
    assert rows["top-50%"]["flag"] == "confidence unavailable: = all samples"
    assert rows["top-50%"]["PAS"].mean == rows["all samples"]["PAS"].mean
    assert t.notes[0].startswith("FLAGGED: confidence unavailable for 4 of 4")

    execute(bench, spec(cfg, run_id="frs-nolp-1", samples=1))
    cmp = compare_runs_frs(bench, "frs-nolp-1", "frs-nolp", 50)
    assert cmp is not None and len(cmp.rows) == 3 * 4
    top = next(r for r in cmp.rows if r["aggregation"] == "top-50%" and r["metric"] == "PAS")
    assert "B: confidence unavailable" in top["flag"] and "A: confidence unavailable" in top["flag"]
    first = next(r for r in cmp.rows if r["aggregation"] == "first sample" and r["metric"] == "PAS")
    assert first["n"] == 4 and first["B-A"] == 0.0  # same first answers, same scores


def test_cli_refuses_bad_samples_and_k(bench):
    from typer.testing import CliRunner

    from kg.cli.main import app

    env = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
    r = CliRunner().invoke(app, ["eval", "run", "--responder", "empty", "--samples", "0"], env=env)
    assert r.exit_code != 0 and "--samples: must be at least 1 (got 0)" in r.output
    for k in ("0", "150"):
        r = CliRunner().invoke(app, ["eval", "report", "frs-r", "--top-k-percent", k], env=env)
        assert r.exit_code != 0 and f"--top-k-percent: {float(k)} is outside (0, 100]" in r.output
