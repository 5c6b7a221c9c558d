"""C3 context perturbations on a real Neo4j through the scripted server: `--contexts C` asks
each question once more under each of C seeded perturbations (stored on the answer, the same
on a rerun), and the report's consistency tables give known values for known verdicts."""

from __future__ import annotations

import re

import numpy as np
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

from evaluation.profiles.consistency import consistency_tables
from evaluation.profiles.perturbations import framings
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.scoring.question_scores import run_scores

pytestmark = pytest.mark.integration
CONTEXTS = 2
_KIND = re.compile(r"\[ctx (\w+)\]")


def _kind(body) -> str:
    user = "\n".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    if user.startswith("Some background from the same field"):
        return "facts"
    return "framing" if any(user.startswith(f) for f in framings()) else "none"


@pytest.fixture
def cfg(llm_server, tmp_path):
    """Responder: names the perturbation kind it saw; judge: every path present, except in
    answers under a facts preamble (only P1)."""

    def judge(body):
        found = _KIND.search(str(body["messages"]))
        kind = found.group(1) if found else "none"
        return scripted_path_verdicts(body, lambda pid: kind != "facts" or pid == "P1")

    llm_server.add_rule(match=PATHS_MARKER, reply=judge)
    llm_server.add_rule(match=FAITH_MARKER, reply=scripted_claims)
    llm_server.add_rule(match=RELEVANCY_MARKER, reply=scripted_relevancy)
    llm_server.add_rule(
        match=ANSWER_MARKER, reply=lambda body: f"[ctx {_kind(body)}] " + scripted_answer(body)
    )

    def make(role: str, **kw):
        values = {"role": role, "cache": True, "cache_path": tmp_path / "cache.sqlite", **kw}
        return llm_server.config(**values)

    return make


def spec(cfg, **kw) -> RunSpec:
    values = {
        "kind": "eval",
        "responder": "llm",
        "responder_llm": cfg("responder"),
        "judge": "llm",
        "judge_llm": cfg("judge", model="judge-model"),
        "domains": ["physics"],
        "limit": 4,
        "contexts": CONTEXTS,
        "seed": 3,
    }
    values.update(kw)
    return RunSpec(**values)


def _stored(bench, run: str) -> dict[tuple[str, str | None], dict]:
    rows = bench.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $run}) MATCH (a)-[:FOR]->(q:Question) "
        "RETURN q.uid AS q, properties(a) AS p",
        run=run,
    )
    return {(r["q"], r["p"].get("context_variant")): r["p"] for r in rows}


def test_contexts_are_asked_stored_and_reproducible(bench, llm_server, cfg):
    summary = execute(bench, spec(cfg, run_id="c3-a"))
    assert summary.status == "done" and summary.completed == 4 * (1 + CONTEXTS), summary.errors
    asked = llm_server.requests_matching(ANSWER_MARKER)
    assert len(asked) == 4 * (1 + CONTEXTS)
    stored = _stored(bench, "c3-a")
    assert len(stored) == 4 * (1 + CONTEXTS)
    for (_, ctx), p in stored.items():
        if ctx is None:
            assert p.get("perturbation") is None and p["text"].startswith("[ctx none]")
            continue
        # the stored perturbation is what the model was shown, before the question
        assert any(r.body["messages"][1]["content"].startswith(p["perturbation"]) for r in asked)
        kind = "facts" if ctx == "c1" else "framing"  # odd: facts preamble, even: framing
        assert p["text"].startswith(f"[ctx {kind}]"), (ctx, p["perturbation"])
    # perturbations differ between questions (seeded per question) ...
    assert len({p["perturbation"] for (_, c), p in stored.items() if c == "c1"}) == 4
    # ... and are rebuilt identically by another run with the same seed: all cached
    calls = len(llm_server.requests)
    again = execute(bench, spec(cfg, run_id="c3-b"))
    assert again.completed == 4 * (1 + CONTEXTS) and again.calls == 0
    assert len(llm_server.requests) == calls
    other = _stored(bench, "c3-b")
    assert {k: p.get("perturbation") for k, p in other.items()} == {
        k: p.get("perturbation") for k, p in stored.items()
    }
    # another seed, other perturbations
    execute(bench, spec(cfg, run_id="c3-s", seed=4))
    assert {p.get("perturbation") for p in _stored(bench, "c3-s").values()} != {
        p.get("perturbation") for p in stored.values()
    }
    # the per-question tables stay the original question's
    _, first = run_scores(bench, "c3-a")
    assert len(first) == 4 and all(s.context is None for s in first)


def test_consistency_known_values(bench, cfg):
    execute(bench, spec(cfg, run_id="c3-r"))
    _, every = run_scores(bench, "c3-r", all_samples=True)
    valid = {
        r["q"]: r["v"]
        for r in bench.run_text(
            "MATCH (a:Answer {run: 'c3-r'})-[:FOR]->(q:Question) WITH DISTINCT q "
            "RETURN q.uid AS q, COUNT { (q)-[:TARGET|DISTRACTOR]->(:Path) } AS v"
        )
    }
    # original: all of V; c1 (facts): {P1} -> Jaccard 1/|V|; c2 (framing): all -> 1
    want = {q: (1 / v + 1) / 2 for q, v in valid.items()}

    def embed(texts):  # answers to the original and the framing agree, facts ones do not
        return np.array([[0.0, 1.0] if t.startswith("[ctx facts]") else [1.0, 0.0] for t in texts])

    tables = consistency_tables(bench, "c3-r", every, embed)
    per_q = {(r["domain"], r["id"]): r for r in tables["c3_questions"].rows}
    assert len(per_q) == 4
    by_uid = {s.question: (s.domain, s.id) for s in every}
    for q, w in want.items():
        row = per_q[by_uid[q]]
        assert row["path consistency"] == pytest.approx(w, abs=1e-3)
        assert row["answer similarity"] == pytest.approx(0.5)
        assert row["informative"] == ("yes" if w >= 0.5 else "no")
    summary = {r["measure"]: r["value"] for r in tables["c3"].rows}
    mean = summary["path consistency (Jaccard of A)"].mean
    assert mean == pytest.approx(sum(want.values()) / len(want))
    assert summary["questions compared"] == 4 and summary["perturbations per question"] == 2


def test_report_has_c3_tables_with_the_real_embedder(bench, cfg):
    from evaluation.reporting.report import build_report

    execute(bench, spec(cfg, run_id="c3-rep"))
    rep = build_report(bench, ["c3-rep"], plots=False)
    sims = [r["answer similarity"] for r in rep.tables["c3-rep_c3_questions"].rows]
    assert len(sims) == 4 and all(-1.0 <= s <= 1.0 for s in sims)
    assert rep.tables["c3-rep_by_hop"].rows[-1]["n"] == 4  # the original questions only


def test_cli_refuses_negative_contexts(bench):
    from typer.testing import CliRunner

    from kg.cli.main import app

    env = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
    args = ["eval", "run", "--responder", "empty", "--contexts", "-1"]
    r = CliRunner().invoke(app, args, env=env)
    assert r.exit_code != 0 and "--contexts: must be at least 0 (got -1)" in r.output
