"""Offline evaluation end to end on a real Neo4j: baseline responders, the embedding judge,
runs in the graph, reports, compare, agreement and bad input."""

from __future__ import annotations

import json

import pytest

from evaluation.models import Setting
from evaluation.reporting.report import build_report, compare_runs, judge_agreement
from evaluation.runs.questions import EvalInputError
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import list_runs
from evaluation.scoring.question_scores import run_scores

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def demo(store, shared_data):
    from construction.perspectivebench.importer import import_perspectivebench

    import_perspectivebench(store, [shared_data / "perspectivebench/samples/benchmark.jsonl"])
    return store


def _run(store, responder, **kw):
    spec = RunSpec(
        kind="eval", responder=responder, judge="embedding", setting=Setting.oracle, **kw
    )
    return execute(store, spec)


def test_cover_all_target_only_empty(demo):
    cover = _run(demo, "cover-all", run_id="cover")
    target = _run(demo, "target-only", run_id="target")
    empty = _run(demo, "empty", run_id="empty")
    assert [s.status for s in (cover, target, empty)] == ["done"] * 3
    assert cover.completed == 2 and cover.calls == 0

    _, cs = run_scores(demo, "cover")
    # every question has 2 valid paths, 1 target: cover-all states both
    assert all(s.recall == 1.0 and s.precision == 0.5 for s in cs)
    assert all(s.pas == pytest.approx(2 / 3) for s in cs)
    assert all(s.tokens_source == "regex-tokenizer" and s.tokens > 0 for s in cs)
    _, ts = run_scores(demo, "target")
    assert all(s.recall == 1.0 for s in ts)
    _, es = run_scores(demo, "empty")
    assert all(s.empty_a and s.precision == 0 and s.pas == 0 for s in es)
    assert all(s.faithfulness is None and s.relevancy == 0.0 for s in es)


def test_graph_records(demo):
    counts = demo.node_counts()
    assert counts["Run"] == 3 and counts["Answer"] == 6
    # one verdict per (answer, path): 3 runs x 2 questions x 2 paths
    assert counts["Verdict"] == 12
    rels = {r["type"]: r["count"] for r in demo.query("core/rel_counts")}
    assert rels["FOR"] == 6 and rels["IN_RUN"] == 6 and rels["ON"] == 12 and rels["OF"] >= 12
    run = next(r for r in list_runs(demo) if r.uid == "cover")
    assert run.status == "done" and run.judged == 2 and run.kind == "eval"
    assert run.setting == "oracle" and run.strategy == "plain"
    assert run.roles["responder"] == "baseline:cover-all"
    assert run.judge and run.judge.startswith("baseline:embedding") and run.version
    assert run.tokens_out and run.started_at and run.ended_at
    assert run.config["context"]["setting"] == "oracle"


def test_rerun_is_idempotent(demo):
    again = _run(demo, "cover-all", run_id="cover")
    assert again.done_before == 2 and again.completed == 0 and again.status == "done"
    assert demo.node_counts()["Answer"] == 6


def test_same_id_other_config_is_refused(demo):
    with pytest.raises(EvalInputError, match="another configuration.*responder"):
        _run(demo, "target-only", run_id="cover")


def test_report_exports_and_plots(demo, tmp_path):
    rep = build_report(demo, ["cover", "target", "empty"], tmp_path)
    names = {p.name for p in rep.files}
    for stem in ("cover_by_hop", "cover_by_domain", "cover_by_theme", "overall"):
        assert {f"{stem}.csv", f"{stem}.json", f"{stem}.md"} <= names
    assert {"pas_by_hop.png", "precision_recall.png"} <= names
    hop = json.loads((tmp_path / "cover_by_hop.json").read_text())
    overall = next(r for r in hop["rows"] if r["hop"] == "Overall")
    assert overall["PRec"]["mean"] == 100.0 and overall["PAS"]["mean"] == pytest.approx(
        66.667, abs=0.01
    )
    md = rep.markdown()
    assert "Offline baseline(s)" in md and "by theme" in md and "Operation" in md
    assert (tmp_path / "pas_by_hop.png").read_bytes()[:4] == b"\x89PNG"


def test_compare_and_agreement(demo):
    table = compare_runs(demo, "cover", "target")
    prec = next(r for r in table.rows if r["metric"] == "PPrec")
    assert prec["n"] == 2 and prec["A"] == 50.0
    summary, confusion = judge_agreement(demo, "cover", "cover")
    assert summary.rows[-1]["agreement %"] == 100.0 and summary.rows[-1]["Cohen's kappa"] == 1.0
    cells = [[r["present"], r["absent"]] for r in confusion.rows]
    assert sum(map(sum, cells)) == 4
    with pytest.raises(EvalInputError, match="no answer in common"):
        judge_agreement(demo, "cover", "target")


def test_unknown_run_ids(demo):
    with pytest.raises(EvalInputError, match="unknown run id 'nope'"):
        build_report(demo, ["nope"])
    with pytest.raises(EvalInputError, match="unknown run id"):
        execute(demo, RunSpec(kind="judge", source_run="nope", judge="embedding"))
    with pytest.raises(EvalInputError, match="unknown run id"):
        compare_runs(demo, "cover", "nope")
    demo.run_text("CREATE (:Run {uid: 'other-task', kind: 'perspectra'})")
    with pytest.raises(EvalInputError, match="is a perspectra run"):
        build_report(demo, ["other-task"])
    demo.run_text("MATCH (r:Run {uid: 'other-task'}) DELETE r")


def test_question_without_targets_is_refused_and_nothing_written(demo):
    before = demo.node_counts()
    demo.run_text("MATCH (q:Question {id: 1, domain: 'demo'})-[t:TARGET]->() DELETE t")
    try:
        with pytest.raises(EvalInputError, match=r"demo#1 .*no target paths"):
            _run(demo, "cover-all", run_id="bad")
        assert demo.node_counts() == before
        skipped = _run(demo, "cover-all", run_id="skip", skip_invalid=True)
        assert skipped.skipped_invalid == 1 and skipped.completed == 1
    finally:
        demo.run_text(
            "MATCH (q:Question {id: 1, domain: 'demo'}), (p:Path {signature: "
            "'topic_0 -- MONITORS --> topic_1', domain: 'demo'}) "
            "MERGE (q)-[:TARGET {name: 'path_1', pos: 1}]->(p)"
        )


def test_cli_commands(demo, tmp_path):
    from typer.testing import CliRunner

    from kg.cli.main import app

    runner = CliRunner()
    res = runner.invoke(app, ["eval", "runs", "--json"])
    assert res.exit_code == 0, res.output
    listed = {r["uid"]: r for r in json.loads(res.output)}
    assert listed["cover"]["status"] == "done" and listed["cover"]["judged"] == 2
    assert runner.invoke(app, ["eval", "runs"]).exit_code == 0
    res = runner.invoke(app, ["eval", "report", "cover", "target", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "Overall" in res.output and (tmp_path / "report.md").exists()
    assert (tmp_path / "precision_recall.png").exists()
    res = runner.invoke(app, ["eval", "compare", "cover", "target"])
    assert res.exit_code == 0 and "Paired comparison" in res.output
    res = runner.invoke(app, ["eval", "agreement", "cover", "cover", "--out", str(tmp_path)])
    assert res.exit_code == 0 and "Cohen's kappa" in res.output
    assert (tmp_path / "confusion_cover_cover.csv").exists()
    res = runner.invoke(app, ["eval", "report", "missing-run"])
    assert res.exit_code == 1 and "unknown run id 'missing-run'" in res.output
    res = runner.invoke(app, ["eval", "run", "--responder", "llm"])
    assert res.exit_code == 1 and "--model" in res.output
    res = runner.invoke(app, ["eval", "run", "--responder", "cover-all", "--setting", "bogus"])
    assert res.exit_code == 1 and "bogus" in res.output


def test_judge_run_honours_the_limit(demo):
    """`kg eval judge --limit N` judges the first N stored answers, not all of them."""
    from typer.testing import CliRunner

    from kg.cli.main import app

    _run(demo, "cover-all", run_id="cover")  # 2 answers (done above, or now)
    res = CliRunner().invoke(
        app,
        ["eval", "judge", "--run", "cover", "--judge", "embedding", "--limit", "1"]
        + ["--run-id", "rejudge-one"],
    )
    assert res.exit_code == 0, res.output
    assert "1 question(s) judged now" in res.output
    judged = demo.run_text(
        "MATCH (a:Answer)-[:JUDGED_IN]->(:Run {uid: 'rejudge-one'}) "
        "MATCH (a)-[:FOR]->(q:Question) RETURN q.id AS id"
    )
    assert [r["id"] for r in judged] == [0]  # the first question by (domain, id)
    whole = execute(
        demo, RunSpec(kind="judge", source_run="cover", judge="embedding", run_id="rejudge-all")
    )
    assert whole.completed == 2
    with pytest.raises(EvalInputError, match="no answer of run 'cover' matches"):
        execute(
            demo,
            RunSpec(
                kind="judge",
                source_run="cover",
                judge="embedding",
                domains=["no-such-domain"],
                run_id="rejudge-none",
            ),
        )
