"""Imported benchmarks kept apart from drafts (issue 27), on the real Neo4j: the published sample
imported and three small offline drafts built beside it (the demo chunks, whose question ids
collide with the sample's). The shipped gold files validate as they are, `kg eval run` without
--domain evaluates no draft, unknown domains are errors, `kg eval table` equals the reports."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from construction.pipeline.config import BuildConfig
from construction.pipeline.runner import BuildPlan, build_domain
from evaluation.judges.gold import load_gold
from evaluation.runs.questions import load_questions
from kg import domains
from kg.cli.main import app

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "demo" / "build"
DRAFTS = ["draft_one", "draft_two", "draft_three"]
ENV = {"COLUMNS": "80"}


@pytest.fixture(scope="module")
def graph(bench, tmp_path_factory):
    """The sample imported, then three drafts built offline: two of the 30 demo chunks, and
    one of 18 chunks extended twice (`--extend` with 24, then 30 chunks)."""
    every = json.loads((DEMO / "chunks.json").read_text())
    files = {}
    for n in (18, 24, 30):
        path = tmp_path_factory.mktemp(f"chunks{n}") / "chunks.json"
        path.write_text(json.dumps(every[:n]))
        files[n] = path
    passes = [("draft_one", 30, False), ("draft_two", 30, False)]
    passes += [("draft_three", 18, False), ("draft_three", 24, True), ("draft_three", 30, True)]
    for name, n, extend in passes:
        result = build_domain(
            bench,
            BuildPlan(
                config=BuildConfig(domain=name),
                chunk_paths=[files[n]],
                palette_path=DEMO / "palette.json",
                extend=extend,
            ),
        )
        assert result.status == "done"
    return bench


def _cli(*args: str):
    return CliRunner().invoke(app, list(args), env=ENV)


def test_domains_record_their_origin(graph, shared_data):
    rows = {d.name: d for d in domains.all_domains(graph)}
    sample = shared_data / "perspectivebench" / "sample.jsonl"
    import hashlib

    digest = hashlib.sha256(sample.read_bytes()).hexdigest()
    for name in ("physics", "biology", "world_history"):
        assert rows[name].origin == "imported"
        assert rows[name].import_sources == [f"sample.jsonl sha256:{digest}"]
    for name in DRAFTS:
        assert rows[name].origin == "built"
        assert rows[name].source.startswith(f"build {rows[name].last_build['uid']} (kg ")
    res = _cli("domain", "list", "--json")
    assert res.exit_code == 0, res.output
    listed = {d["name"]: d for d in json.loads(res.output)}
    assert listed["physics"]["import_sources"] == [f"sample.jsonl sha256:{digest}"]
    assert listed["draft_one"]["origin"] == "built"


def test_question_ids_collide_and_the_shipped_gold_files_validate_as_they_are(graph, shared_data):
    questions, _ = load_questions(graph, skip_invalid=True)
    by_id: dict[int, set[str]] = {}
    for q in questions:
        by_id.setdefault(q.id, set()).add(q.domain)
    assert any(len(ds & set(DRAFTS)) and len(ds) > 1 for ds in by_id.values())
    for name in ("dev.jsonl", "natural-dev.jsonl"):
        gold = shared_data / "judge-gold" / name
        items = load_gold(gold, questions)
        assert items and all(g.question.imported for g in items)
        assert {g.question.domain for g in items} <= {"physics", "biology", "world_history"}


def test_a_gold_line_on_a_colliding_id_takes_the_imported_question(graph, tmp_path):
    questions, _ = load_questions(graph, skip_invalid=True)
    draft_ids = {q.id for q in questions if q.domain in DRAFTS}
    q = next(q for q in questions if q.imported and q.id in draft_ids)
    labels = {p.name: p.target for p in q.paths if p.name}
    line = {"answer_id": "x", "question_id": q.id, "answer": "text", "present": labels}
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(line) + "\n")
    [item] = load_gold(gold, questions)
    assert item.question.uid == q.uid
    # restricted to the drafts (the CLI's --origin built), the same line is refused
    drafts_only = [x for x in questions if x.domain in DRAFTS]
    res = _cli("judge", "validate", "--gold", str(gold), "--origin", "built", "--no-store")
    assert res.exit_code != 0
    assert str(q.id) in " ".join(res.output.split())
    assert drafts_only


def test_two_extend_passes_reuse_concepts_and_duplicate_no_name(graph):
    rows = graph.run_text(
        "MATCH (c:Concept {domain: 'draft_three'}) "
        "RETURN c.key AS key, toLower(c.name) AS name, coalesce(c.generation, 0) AS g, "
        "c.generations AS gs"
    )
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names)), sorted(names)
    assert domains.one(graph, "draft_three").generation == 2
    reused = [r for r in rows if r["gs"] and max(r["gs"]) > r["g"]]
    assert reused, "an extension reproduces some earlier concepts: they are reused"
    # every edge joins two concepts of its generation (its own or reused ones)
    edges = graph.run_text(
        "MATCH (a:Concept {domain: 'draft_three'})-[r:RELATES]->(b:Concept) "
        "RETURN coalesce(r.generation, a.generation, 0) AS g, "
        "coalesce(a.generations, [coalesce(a.generation, 0)]) AS ga, "
        "coalesce(b.generations, [coalesce(b.generation, 0)]) AS gb"
    )
    assert edges and all(e["g"] in e["ga"] and e["g"] in e["gb"] for e in edges)


def test_unknown_domain_is_an_error_naming_the_known_ones(graph):
    for args in (
        ["stats", "--domain", "nosuch"],
        ["validate", "nosuch"],
        ["eval", "run", "--responder", "empty", "--domain", "nosuch"],
        ["judge", "validate", "--gold", __file__, "--domain", "nosuch"],
    ):
        res = _cli(*args)
        flat = " ".join(res.output.split())
        assert res.exit_code != 0, args
        assert "nosuch" in flat and "physics" in flat and "draft_one" in flat, (args, flat)


def test_stats_totals_never_mix_drafts_and_published_data(graph):
    res = _cli("stats", "--format", "json")
    assert res.exit_code == 0, res.output
    totals = {r["domain"]: r for r in json.loads(res.output) if r["hop"] == "ALL"}
    imported = sum(totals[d]["questions"] for d in ("physics", "biology", "world_history"))
    built = sum(totals[d]["questions"] for d in DRAFTS)
    assert totals["ALL imported"]["questions"] == imported
    assert totals["ALL built"]["questions"] == built
    assert "ALL" not in totals


def test_eval_default_touches_no_draft_and_the_table_equals_the_reports(
    graph, tmp_path, monkeypatch
):
    from kg.cli.console import console

    monkeypatch.setattr(console, "width", 80)  # an 80-column terminal
    runs = ["sc-cover", "sc-target", "sc-empty"]
    for rid, responder in zip(runs, ["cover-all", "target-only", "empty"], strict=True):
        res = _cli("eval", "run", "--responder", responder, "--run-id", rid)
        assert res.exit_code == 0, res.output
    touched = graph.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(r:Run) WHERE r.uid IN $runs "
        "MATCH (a)-[:FOR]->(q:Question) RETURN DISTINCT q.domain AS d",
        runs=runs,
    )
    assert {r["d"] for r in touched} == {"physics", "biology", "world_history"}
    out = tmp_path / "table"
    res = _cli("eval", "table", *runs, "--layout", "paper", "--out", str(out))
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) <= 80
    rows = list(csv.DictReader((out / "table_paper.csv").open(encoding="utf-8")))
    assert [r["model"] for r in rows] == [
        f"baseline:{r}" for r in ["cover-all", "target-only", "empty"]
    ]
    tex = (out / "table_paper.tex").read_text(encoding="utf-8")
    assert "\\toprule" in tex and "\\textbf{" in tex and "\\underline{" in tex
    for rid, row in zip(runs, rows, strict=True):
        rep_dir = tmp_path / rid
        res = _cli("eval", "report", rid, "--out", str(rep_dir), "--no-plots")
        assert res.exit_code == 0, res.output
        by_hop = json.loads((rep_dir / f"{rid}_by_hop.json").read_text(encoding="utf-8"))
        for hop_row in by_hop["rows"]:
            for metric in ("PPrec", "PRec", "PAS", "Faithfulness", "#Tok"):
                mean = hop_row[metric]["mean"]
                cell = row[f"{hop_row['hop']} {metric}"]
                assert (cell == "" and mean is None) or float(cell) == pytest.approx(mean)
        report_md = (rep_dir / "report.md").read_text(encoding="utf-8")
        assert report_md.startswith("### Results by model and hop")
        themes = json.loads((rep_dir / f"{rid}_by_theme.json").read_text(encoding="utf-8"))
        for domain in ("physics", "biology", "world_history"):
            cats = [r for r in themes["rows"] if r["domain"] == domain]
            assert 1 <= len(cats) <= 12
            assert all(r["raw themes"] for r in cats)


def test_validate_on_the_imported_sample_passes_with_documented_warnings(graph):
    res = _cli("validate", "--origin", "imported", "--format", "json")
    assert res.exit_code == 0, res.output
    reports = json.loads(res.output)
    assert {r["domain"] for r in reports} == {"physics", "biology", "world_history"}
    for r in reports:
        assert r["status"] in ("pass", "warn")
        for c in r["checks"]:
            assert c["convention"], c["name"]
            if c["status"] == "warn":
                assert c["convention"].startswith("departs") or "excerpt" in c["convention"]
