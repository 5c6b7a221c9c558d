"""`kg judge validate`, `kg eval import-answers` and the judge's trust in reports, through the
real CLI app on a real Neo4j; the LLM judge through the scripted test server (real HTTP)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_runs import import_demo_sample, point_at, run
from llm_server import PATHS_MARKER, scripted_path_verdicts
from sklearn.metrics import cohen_kappa_score

from evaluation.judges.base import shuffled_paths
from evaluation.judges.gold import load_gold
from evaluation.judges.validation import latest_validations
from evaluation.runs.questions import load_questions

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "demo" / "judge" / "gold.jsonl"


@pytest.fixture(scope="module")
def kg(store):
    """Run `kg ...` against the test server, with the demo sample imported first."""
    mp = pytest.MonkeyPatch()
    point_at(store, mp)
    import_demo_sample()
    yield run
    mp.undo()


def _gold_pairs(store, decide_present) -> tuple[list[bool], list[bool]]:
    questions, _ = load_questions(store, skip_invalid=True)
    judge, gold = [], []
    for g in load_gold(GOLD, questions):
        for p in g.question.paths:
            judge.append(decide_present(g, p))
            gold.append(g.present[p.name])
    return judge, gold


def test_validate_offline_judge_reports_and_stores(kg, store):
    out = json.loads(
        kg(
            "judge", "validate", "--gold", str(GOLD), "--judge", "edge-evidence", "--format", "json"
        ).stdout
    )
    o = out["overall"]
    lines = [json.loads(x) for x in GOLD.read_text().splitlines() if x.strip()]
    assert o["answers"] == len(lines)
    assert o["paths"] == sum(len(x["present"]) for x in lines)
    assert o["gold_present"] == sum(v for x in lines for v in x["present"].values())
    assert {g["group"] for g in out["by_style"]} == {x["style"] for x in lines}
    assert o["kappa"]["low"] <= o["kappa"]["mean"] <= o["kappa"]["high"]
    # the stored kappa is the one of the judge's own decisions, recomputed independently
    from evaluation.judges import EdgeEvidenceJudge
    from evaluation.runs.questions import load_questions

    judge = EdgeEvidenceJudge(faithfulness=False)
    judge.learn(load_questions(store, skip_invalid=True)[0])  # as validate: the graph's reasons
    assert "reader" in judge.name
    verdicts: dict[str, dict[str, bool]] = {}

    def decide_present(g, p):
        if g.answer_id not in verdicts:
            verdicts[g.answer_id] = {
                v.path_uid: v.present for v in judge.path_verdicts(g.question, g.answer)
            }
        return verdicts[g.answer_id][p.uid]

    j, gd = _gold_pairs(store, decide_present)
    assert o["kappa"]["mean"] == pytest.approx(cohen_kappa_score(j, gd))
    stored = latest_validations(store, [judge.name])[judge.name]
    assert stored["kappa"] == pytest.approx(o["kappa"]["mean"])
    assert stored["paths"] == o["paths"] and stored["gold_hash"] == out["gold_hash"]
    table = kg("judge", "validate", "--gold", str(GOLD), "--no-store").stdout
    assert "agreement %" in table and "aligned" in table and "1-hop" in table


def test_bad_gold_file_is_refused_and_nothing_stored(kg, store, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps(
            {
                "answer_id": "z",
                "question_id": 4242,
                "domain": "ostra_station",
                "answer": "x",
                "present": {"path_0": True},
            }
        )
        + "\n"
        + json.dumps(
            {
                "answer_id": "y",
                "question_id": 1,
                "domain": "ostra_station",
                "answer": "x",
                "present": {"path_0": True, "path_9": False},
            }
        )
        + "\n"
        + json.dumps(
            {
                "answer_id": "w",
                "question_id": 1,
                "domain": "ostra_station",
                "answer": "x",
                "present": {"path_0": True},
            }
        )
        + "\n"
    )
    before = store.query("eval/judge_validations_all")
    out = kg("judge", "validate", "--gold", str(bad), "--judge", "embedding", code=1).output
    flat = re.sub(r"\s+", "", out)
    assert re.sub(r"\s+", "", f"{bad}:1:question_id: unknown question 4242") in flat
    assert re.sub(r"\s+", "", f"{bad}:2:present.path_9: unknown path name") in flat
    assert re.sub(r"\s+", "", f"{bad}:3:present: missing labels for path(s) path_1") in flat
    assert store.query("eval/judge_validations_all") == before


def test_import_answers_judge_and_report_say_how_far_the_judge_is_trusted(kg, store, tmp_path):
    lines = [json.loads(x) for x in GOLD.read_text().splitlines() if x.strip()]
    first: dict[int, dict] = {}
    for x in lines:
        first.setdefault(x["question_id"], x)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps(
                {
                    "question_id": q,
                    "domain": "ostra_station",
                    "answer": x["answer"],
                    "model": "elsewhere",
                    "completion_tokens": 11,
                }
            )
            + "\n"
            for q, x in first.items()
        )
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(answers.read_text() + '{"question_id": 1, "domain": "ostra_station"}\n')
    counts = store.node_counts()
    out = kg("eval", "import-answers", str(bad), "--run-id", "imported", code=1).output
    assert re.sub(r"\s+", "", f"{bad}:{len(first) + 1}:answer: missing") in re.sub(r"\s+", "", out)
    assert store.node_counts() == counts  # nothing written
    kg("eval", "import-answers", str(answers), "--run-id", "imported")
    after = store.node_counts()
    assert after.get("Answer", 0) - counts.get("Answer", 0) == len(first)
    assert (
        "nothing changed"
        in kg("eval", "import-answers", str(answers), "--run-id", "imported").stdout
    )
    assert store.node_counts() == after
    # the embedding baseline was never validated: its report says so
    kg("eval", "judge", "--run", "imported", "--judge", "embedding", "--run-id", "imp-emb")
    report = kg("eval", "report", "imp-emb").stdout
    assert "unvalidated" in report
    # the default judge, once validated, carries its measured kappa into the report
    v = json.loads(kg("judge", "validate", "--gold", str(GOLD), "--format", "json").stdout)
    kg("eval", "judge", "--run", "imported", "--judge", "edge-evidence", "--run-id", "imp-ee")
    out_dir = tmp_path / "rep"
    report = kg("eval", "report", "imp-ee", "--out", str(out_dir)).stdout
    # the demo's gold holds constructed answers: its kappa is named so, never "validated"
    kappa = f"{v['overall']['kappa']['mean']:.2f}"
    flat = re.sub(r"\s+", " ", report)
    assert "unvalidated on natural answers" in flat
    assert f"kappa {kappa}" in flat and "on constructed answers" in flat and "gold.jsonl" in flat
    overall = json.loads((out_dir / "overall.json").read_text())
    rows = overall["rows"] if isinstance(overall, dict) else overall
    assert rows[0]["judge kappa"] == "unvalidated"
    assert rows[0]["judge kappa (constructed)"] == round(v["overall"]["kappa"]["mean"], 2)
    assert rows[0]["judge trust"] == "constructed-only"
    assert rows[0]["n"] == len(first)


def _validate_with_llm_judge(kg, llm_server, *extra: str) -> dict:
    """`kg judge validate` of the test gold file with the test server's judge model (JSON)."""
    args = ["--gold", str(GOLD), "--judge", "judge-model", "--base-url", llm_server.base_url]
    args += ["--api-key-env", "EVAL_TEST_KEY", "--no-cache", *extra, "--format", "json"]
    return json.loads(kg("judge", "validate", *args).stdout)


def test_llm_judge_validated_through_the_test_server(kg, store, llm_server, monkeypatch):
    monkeypatch.setenv("EVAL_TEST_KEY", "sk-test-judge-validate")
    llm_server.add_rule(match=PATHS_MARKER, reply=scripted_path_verdicts)  # odd ids present
    out = _validate_with_llm_judge(kg, llm_server)
    n_answers = len([x for x in GOLD.read_text().splitlines() if x.strip()])
    assert len(llm_server.requests_matching(PATHS_MARKER)) == n_answers  # one checklist each
    assert out["judge"] == "llm:judge-model" and out["errors"] == []

    def scripted(g, p):  # what the server decided: odd neutral ids, in the judge's shuffle
        ids = {path.uid: pid for pid, path in shuffled_paths(g.question, 0)}
        return int(ids[p.uid][1:]) % 2 == 1

    j, gd = _gold_pairs(store, scripted)
    assert out["overall"]["kappa"]["mean"] == pytest.approx(cohen_kappa_score(j, gd))
    assert out["overall"]["judge_present"] == sum(j)
    assert latest_validations(store, ["llm:judge-model"])["llm:judge-model"]["answers"] == n_answers


def test_limit_bounds_the_answers_an_llm_judge_is_asked(kg, store, llm_server, monkeypatch):
    monkeypatch.setenv("EVAL_TEST_KEY", "sk-test-judge-validate")
    llm_server.add_rule(match=PATHS_MARKER, reply=scripted_path_verdicts)
    out = _validate_with_llm_judge(kg, llm_server, "--limit", "3")
    assert len(llm_server.requests_matching(PATHS_MARKER)) == 3
    assert out["overall"]["answers"] == 3 and out["errors"] == []
