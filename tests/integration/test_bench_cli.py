"""The bench commands end to end through the real `kg` CLI app and a real Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runs import point_at, run

pytestmark = pytest.mark.integration

MALFORMED = Path(__file__).resolve().parents[1] / "data" / "malformed"


@pytest.fixture(scope="module")
def kg(store, shared_data):
    """Run `kg ...` against the test server; the sample and the demo file are imported first."""
    mp = pytest.MonkeyPatch()
    point_at(store, mp)

    root = shared_data / "perspectivebench"
    out = run(
        "import",
        "perspectivebench",
        str(root / "sample.jsonl"),
        str(root / "samples" / "benchmark.jsonl"),
        "--format",
        "json",
    )
    report = json.loads(out.stdout)
    assert report["questions_written"] == 141
    yield run
    mp.undo()


def test_import_again_creates_nothing(kg, shared_data):
    out = kg("import", "perspectivebench", str(shared_data / "perspectivebench" / "sample.jsonl"))
    assert "none (already imported)" in out.stdout


def test_bad_file_is_reported_with_file_line_field(kg):
    out = kg("import", "perspectivebench", str(MALFORMED / "four_hops.jsonl"), code=1)
    assert "four_hops.jsonl:1:valid_paths[1].path_1:" in out.output
    assert "nothing was written" in out.output


def test_skip_invalid_writes_rejects(kg, tmp_path):
    rejects = tmp_path / "rejects.jsonl"
    out = kg(
        "import",
        "perspectivebench",
        str(MALFORMED / "bad_arrow.jsonl"),
        str(MALFORMED / "good.jsonl"),
        "--skip-invalid",
        "--rejects",
        str(rejects),
    )
    assert "rejects written to" in out.stdout
    assert "bad path syntax" in rejects.read_text()


def test_stats_formats(kg):
    rows = json.loads(kg("stats", "--format", "json").stdout)
    total = rows[-1]
    assert total["domain"] == "ALL" and total["questions"] >= 141
    assert 0 < total["cover_all_precision"] < 1 and total["cover_all_recall"] == 1
    csv_out = kg("stats", "--format", "csv", "--domain", "physics").stdout.splitlines()
    assert csv_out[0].startswith("domain,hop,questions")
    assert len(csv_out) == 1 + 2 + 1 + 1  # header, hops 1 and 3, physics total, grand total
    assert "cover-all" in kg("stats").stdout


def test_paths_by_key_and_by_text(kg):
    data = json.loads(
        kg("paths", "topic_3", "topic_13", "--domain", "physics", "--format", "json").stdout
    )
    labels = sorted(g["labels"][0] for g in data["groups"])
    assert labels == ["CAUSES", "ENABLES_FUNCTION", "EXPLAINS_PHENOMENON", "PRECEDES"]
    assert all(p["reasons"][0] for g in data["groups"] for p in g["paths"])
    by_text = kg(
        "paths", "radioactive dating", "nuclear force", "--domain", "physics", "--format", "json"
    )
    assert "matched physics/topic_13" in by_text.stderr
    table = kg("paths", "topic_17", "topic_6", "--domain", "physics", "--max-hops", "3")
    assert "IS_A_SPECIAL_CASE_OF" in table.stdout


def test_ambiguous_concept_asks_to_disambiguate(kg):
    out = kg("paths", "topic_3", "topic_13", code=2)  # topic_3 exists in several domains
    assert "ambiguous" in out.output


def test_perspectives_show_question_targets(kg, shared_data):
    palette = shared_data / "perspectivebench" / "raw" / "pyhsic_init_palette.json"
    data = json.loads(
        kg(
            "perspectives",
            "topic_3",
            "topic_13",
            "--domain",
            "physics",
            "--palette",
            str(palette),
            "--by",
            "category",
            "--format",
            "json",
        ).stdout
    )
    causal = next(g for g in data if g["name"] == "causal_relations @ hop 1")
    assert [q["id"] for q in causal["questions"]] == [0]
    assert sorted(p["labels"][0] for p in causal["paths"]) == [
        "CAUSES",
        "ENABLES_FUNCTION",
        "EXPLAINS_PHENOMENON",
    ]
    by_label = json.loads(
        kg("perspectives", "topic_3", "topic_13", "-d", "physics", "--format", "json").stdout
    )
    precedes = next(g for g in by_label if g["focus"] == "PRECEDES")
    assert (precedes["hop"], precedes["selected"]) == (1, True)
    assert [q["id"] for q in precedes["questions"]] == [1]
    table = kg(
        "perspectives",
        "topic_3",
        "topic_13",
        "--domain",
        "physics",
        "--palette",
        f"physics={palette}",
        "--by",
        "category",
    )
    assert "causal_relations" in table.stdout and "#0" in table.stdout


def test_perspectives_check_prints_the_fidelity_report(kg):
    report = json.loads(kg("perspectives", "--check", "-d", "physics", "--format", "json").stdout)
    rows = {(r["domain"], r["hop"]): r for r in report["rows"]}
    total = rows[("all", None)]
    assert total["questions"] == rows[("physics", None)]["questions"] > 0
    assert total["selected"] <= total["candidate"] <= total["questions"]
    table = kg("perspectives", "--check", "-d", "physics").stdout
    assert "perspective fidelity" in table and "not a candidate: physics#0" in table
    assert "takes no concepts" in kg("perspectives", "topic_3", "--check", code=1).output


def test_question_show_and_concepts(kg):
    out = kg("question", "show", "0", "--domain", "physics")
    assert "topic_3 -- CAUSES --> topic_13" in out.stdout and "focused evidence" in out.stdout
    data = json.loads(kg("question", "show", "1", "--domain", "demo", "--format", "json").stdout)
    assert data["theme"] == "Monitoring" and len(data["paths"]) == 2
    kg("question", "show", "0", code=1)  # id 0 exists in physics and demo
    hits = json.loads(
        kg("concepts", "--search", "radioactive", "--domain", "physics", "--format", "json").stdout
    )
    assert hits[0]["key"] == "topic_13"
    assert "topic_3" in kg("concepts", "--domain", "physics").stdout


def test_export_command(kg, tmp_path, shared_data):
    out = tmp_path / "demo.jsonl"
    assert (
        "wrote 2 question(s)"
        in kg("export", "perspectivebench", "--domain", "demo", str(out)).stdout
    )
    expected = [
        json.loads(x)
        for x in (shared_data / "perspectivebench" / "samples" / "benchmark.jsonl")
        .read_text()
        .splitlines()
    ]
    assert [json.loads(x) for x in out.read_text().splitlines()] == expected


def test_import_with_per_domain_palettes(kg, store, shared_data):
    raw = shared_data / "perspectivebench" / "raw"
    kg(
        "import",
        "perspectivebench",
        str(shared_data / "perspectivebench" / "sample.jsonl"),
        "--palette",
        f"physics={raw / 'pyhsic_init_palette.json'}",
        "--palette",
        f"world_history={raw / 'history_init_palette.json'}",
    )
    rows = store.run_text(
        "MATCH ()-[r:RELATES {label: 'CONTRASTS_WITH'}]->() "
        "RETURN DISTINCT r.domain AS domain, r.category AS category ORDER BY domain"
    )
    cats = {r["domain"]: r["category"] for r in rows}
    assert cats["physics"] == "comparative_relations"
    assert cats["world_history"] == "narrative_and_comparative_relations"
    assert cats.get("biology") is None  # no palette given for biology


def test_bad_palette_is_an_error_for_import_and_build(kg, store, shared_data, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"c": {"relations": [{"name": "lower_case"}]}}', encoding="utf-8")
    before = store.node_counts()
    # rich wraps the message (long tmp paths): compare it without whitespace
    problem = "bad.json:c.relations[0].name'lower_case'"
    out = kg(
        "import",
        "perspectivebench",
        str(shared_data / "perspectivebench" / "sample.jsonl"),
        "--palette",
        str(bad),
        code=1,
    )
    assert problem in "".join(out.output.split())
    out = kg(
        "build",
        "demo_bad_palette",
        "--chunks",
        str(Path(__file__).resolve().parents[2] / "demo" / "build" / "chunks.json"),
        "--palette",
        str(bad),
        code=1,
    )
    assert problem in "".join(out.output.split())
    assert store.node_counts() == before


def test_check_only_validates_without_writing(kg, store):
    before = store.node_counts()
    out = kg("import", "perspectivebench", "--check", str(MALFORMED / "good.jsonl"))
    assert "1 valid question(s)" in out.stdout
    bad = kg("import", "perspectivebench", "--check", str(MALFORMED / "empty_label.jsonl"), code=1)
    assert "empty_label.jsonl:1:valid_paths[1].path_1: empty relation label" in bad.output
    assert store.node_counts() == before
