"""PROOF formulations and decoder grid on a real Neo4j through the scripted server, and
`kg eval profile`: known verdicts per formulation / grid point -> known PAS, broken aligned
answers, hint following and spreads."""

from __future__ import annotations

import re

import pytest
from llm_server import (
    ANSWER_MARKER,
    FAITH_MARKER,
    PATHS_MARKER,
    RELEVANCY_MARKER,
    scripted_claims,
    scripted_path_verdicts,
    scripted_relevancy,
)

from evaluation.judges.base import shuffled_paths
from evaluation.runs.questions import load_questions
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec

pytestmark = pytest.mark.integration
GRID = [{"temperature": 0.2}, {"temperature": 1.0, "top_p": 0.9}]
_HINT = re.compile(r"relation that matters most here is (\w+)\.\)")
_ADV = re.compile(r"one concept that ([a-z ]+) the other")
_TAG = re.compile(r"\[(\w[\w-]*)(?: (\w+))?\]")


def _user(body) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "user")


def answer(body) -> str:
    """Names what was asked: the formulation (with the relation it names) or grid point."""
    text = _user(body)
    if body.get("temperature") == 0.2:
        return "[d1] answer"
    if body.get("temperature") == 1.0:
        return "[d2] answer"
    if m := _HINT.search(text):
        return f"[hint {m.group(1)}] answer"
    if m := _ADV.search(text):
        return f"[adversarial {m.group(1).upper().replace(' ', '_')}] answer"
    if "In your own words" in text:
        return "[neutral-1] answer"
    if "Give a complete answer." in text:
        return "[neutral-2] answer"
    return "[original] answer"


@pytest.fixture
def run(bench, llm_server, request):
    """original, neutral-*, d1: exactly the targets (aligned); adversarial: the targets and
    the distractors with the named relation; hint: only those distractors; d2: nothing."""
    questions, _ = load_questions(bench, domains=["physics"], limit=4)
    by_text = {q.text.strip(): q for q in questions}

    def judge(body):
        text = _user(body)
        q = by_text[text.split("Question:\n", 1)[1].split("\n\nResponse:", 1)[0].strip()]
        ids = dict(shuffled_paths(q, 0))
        tag, label = _TAG.search(text.split("Response:", 1)[1]).groups()

        def present(pid: str) -> bool:
            p = ids[pid]
            named = not p.target and p.labels[0] == label
            if tag == "adversarial":
                return p.target or named
            if tag == "hint":
                return named
            return p.target and tag != "d2"

        return scripted_path_verdicts(body, present)

    llm_server.add_rule(match=PATHS_MARKER, reply=judge)
    llm_server.add_rule(match=FAITH_MARKER, reply=scripted_claims)
    llm_server.add_rule(match=RELEVANCY_MARKER, reply=scripted_relevancy)
    llm_server.add_rule(match=ANSWER_MARKER, reply=answer)
    spec = RunSpec(
        kind="eval",
        run_id=f"proof-{len(request.node.name)}",  # one run per test (a server per test)
        responder="llm",
        responder_llm=llm_server.config(role="responder"),
        judge="llm",
        judge_llm=llm_server.config(role="judge", model="judge-model"),
        domains=["physics"],
        limit=4,
        formulations=["original", "neutral-1", "neutral-2", "adversarial", "hint"],
        decoders=GRID,
        subset_percent=50,
    )
    summary = execute(bench, spec)
    assert summary.status == "done", summary.errors
    return summary, questions


def test_formulations_and_grid_are_asked_and_profiled(bench, llm_server, run, tmp_path):
    from evaluation.profiles.report import build_profile

    summary, questions = run
    rid = summary.run_id
    # 4 questions x (original + 4 formulations) + 2 subset questions x 2 grid points
    assert summary.completed == 4 * 5 + 2 * 2
    asked = llm_server.requests_matching(ANSWER_MARKER)
    assert sorted(r.body.get("temperature", -1) for r in asked).count(0.2) == 2
    assert [r.body.get("top_p") for r in asked].count(0.9) == 2
    stored = bench.run_text(
        "MATCH (a:Answer {run: $run}) RETURN a.formulation AS f, a.formulated AS text, "
        "a.hint_path AS hint, a.decoder_point AS d, a.decoder AS decoder",
        run=rid,
    )
    hints = [r for r in stored if r["f"] == "hint"]
    assert len(hints) == 4 and all(r["hint"] and "(Hint: the relation" in r["text"] for r in hints)
    assert {r["decoder"] for r in stored if r["d"] == "d2"} == {
        '{"temperature": 1.0, "top_p": 0.9}'
    }

    rep = build_profile(bench, rid, tmp_path, ["csv", "md"], True)
    forms = {r["formulation"]: r for r in rep.tables[f"{rid}_formulations"].rows}
    assert list(forms) == ["original", "adversarial", "hint", "neutral-1", "neutral-2"]
    assert forms["original"]["PAS"].mean == 100.0
    for name in ("neutral-1", "neutral-2"):
        assert forms[name]["PAS"].mean == 100.0 and forms[name]["broken"] == "0 of 4"
        assert forms[name]["dPAS vs original"] == 0.0
    assert forms["hint"]["PAS"].mean == 0.0 and forms["hint"]["broken"] == "4 of 4"
    assert forms["hint"]["named distractor present"] == "4 of 4"
    assert forms["hint"]["same path in original"] == "0 of 4"
    assert forms["hint"]["dPAS vs original"] == -100.0
    adv = forms["adversarial"]
    assert adv["broken"] == "4 of 4" and adv["PRec"].mean == 100.0 and adv["PPrec"].mean < 100
    dom = rep.tables[f"{rid}_formulation_domain"].rows
    assert dom == [dom[0]] and dom[0]["domain"] == "physics" and dom[0]["spread"] == 100.0
    dec = {r["decoder"]: r for r in rep.tables[f"{rid}_decoders"].rows}
    assert dec["run's decoder"]["n"] == 2 and dec["run's decoder"]["PAS"].mean == 100.0
    assert dec["d1"]["PAS"].mean == 100.0 and dec["d2"]["PAS"].mean == 0.0
    assert dec["d2"]["settings"] == "temperature=1.0, top_p=0.9"
    assert (
        "spread over the grid and the run's decoder: 100.0 points"
        in (rep.tables[f"{rid}_decoders"].notes[0])
    )
    # the report's own tables stay those of the original questions
    assert rep.tables[f"{rid}_by_hop"].rows[-1]["n"] == 4
    assert {p.name for p in tmp_path.glob("*.png")} >= {
        "pas_by_formulation.png",
        "pas_by_decoder.png",
        "pas_by_domain_formulation.png",
    }


def test_cli_profile_and_bad_input(bench, run):
    from typer.testing import CliRunner

    from kg.cli.main import app

    env = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "250"}
    rid = run[0].run_id
    r = CliRunner().invoke(app, ["eval", "profile", rid, "--no-plots"], env=env)
    assert r.exit_code == 0, r.output
    assert "by formulation" in r.output and "by decoder" in r.output
    bad = [
        (["--formulations", "original,sarcastic"], "unknown formulation(s) 'sarcastic'"),
        (["--decoders", "temperature=0.2;beam=3"], "point 2 'beam=3'"),
        (["--subset-percent", "0"], "--subset-percent: 0.0 is outside (0, 100]"),
    ]
    for args, message in bad:
        r = CliRunner().invoke(app, ["eval", "run", "--responder", "empty", *args], env=env)
        assert r.exit_code != 0 and message in " ".join(r.output.split()), r.output
    r = CliRunner().invoke(app, ["eval", "profile", rid, "--top-k-percent", "101"], env=env)
    assert r.exit_code != 0 and "outside (0, 100]" in r.output
