"""Import rows built from validated questions (no database): identity, sharing, overrides."""

from __future__ import annotations

import json
from pathlib import Path

from construction.perspectivebench.plan import build_plan, planned_uids, render_pool_entry
from construction.perspectivebench.validation import validate_files
from kg import ids

GOOD = Path(__file__).resolve().parents[1] / "data" / "malformed" / "good.jsonl"


def _lines(tmp_path: Path, *objs: dict) -> list:
    f = tmp_path / "in.jsonl"
    f.write_text("".join(json.dumps(o) + "\n" for o in objs))
    result = validate_files([f])
    assert result.errors == []
    return result.questions


def test_rows_follow_the_graph_model(tmp_path):
    obj = json.loads(GOOD.read_text())
    plan = build_plan(_lines(tmp_path, obj))
    assert plan.domains == [{"name": "ostra"}]
    assert {c["key"] for c in plan.concepts} == {"topic_1", "topic_2"}
    c1 = next(c for c in plan.concepts if c["key"] == "topic_1")
    assert c1["uid"] == ids.concept_uid("ostra", "topic_1")
    assert c1["topic_words"] == ["controller", "signal"]
    assert c1["text"].startswith("The Ostra controller drives")
    assert len(plan.paths) == 2 and len(plan.edges) == 2
    path = next(p for p in plan.paths if p["labels"] == ["CONTROLS"])
    assert path["uid"] == ids.path_uid("ostra", "topic_1 -- CONTROLS --> topic_2")
    assert path["edge_uids"] == [ids.relates_uid("ostra", "topic_1", "CONTROLS", "topic_2")]
    assert path["concept_keys"] == ["topic_1", "topic_2"] and path["hops"] == 1
    assert [t["name"] for t in plan.targets] == ["path_0"]
    assert [(d["name"], d["pos"]) for d in plan.distractors] == [("path_1", 1)]
    assert [p["key"] for p in plan.pool] == ["topic_1_source", "topic_2_target"]
    assert all(p["override"] is None for p in plan.pool)
    assert all(t["reasons"] is None for t in plan.targets + plan.distractors)
    q = plan.questions[0]
    assert (q["id"], q["hop"], q["theme"]) == (1, 1, "Control")
    # focused evidence sentence is also key evidence: one Fact node
    assert len(plan.facts) == 3
    assert plan.evidence[0]["fact"] == ids.fact_uid("ostra", obj["focused_evidence"][0])


def test_shared_paths_and_concepts_are_written_once(tmp_path):
    a = json.loads(GOOD.read_text())
    b = json.loads(GOOD.read_text())
    b["id"] = 2
    b["perspective_theme"] = "Monitoring"
    b["perspective_valid_paths"] = [b["valid_paths"][1]]
    plan = build_plan(_lines(tmp_path, a, b))
    assert len(plan.questions) == 2
    assert len(plan.paths) == 2 and len(plan.concepts) == 2
    assert [t["name"] for t in plan.targets] == ["path_0", "path_1"]


def test_disagreeing_lines_keep_their_version_as_overrides(tmp_path):
    a = json.loads(GOOD.read_text())
    b = json.loads(GOOD.read_text())
    b["id"] = 2
    b["full_content_pool"]["topic_1_source"]["Summary"] = "Another summary."
    b["valid_paths"][1]["reason"] = "Another reason."
    plan = build_plan(_lines(tmp_path, a, b))
    over = [p for p in plan.pool if p["override"]]
    assert len(over) == 1 and over[0]["key"] == "topic_1_source"
    assert json.loads(over[0]["override"]) == b["full_content_pool"]["topic_1_source"]
    reasons = [d for d in plan.distractors if d["reasons"]]
    assert [d["reasons"] for d in reasons] == [["Another reason."]]


def test_the_graph_is_canonical_when_it_already_holds_the_concept(tmp_path):
    obj = json.loads(GOOD.read_text())
    questions = _lines(tmp_path, obj)
    concept_uids, path_uids = planned_uids(questions)
    c1 = ids.concept_uid("ostra", "topic_1")
    assert c1 in concept_uids and len(path_uids) == 2
    existing = {c1: render_pool_entry("Stored summary.", None, ["Stored fact."])}
    plan = build_plan(questions, existing_concepts=existing)
    # no key evidence rewritten for the existing concept; its line keeps its own entry
    assert all(k["concept"] != c1 for k in plan.key_evidence)
    pool = next(p for p in plan.pool if p["concept"] == c1)
    assert json.loads(pool["override"]) == obj["full_content_pool"]["topic_1_source"]
    assert any("the graph" in w.message for w in plan.warnings)


def test_palette_sets_edge_categories(tmp_path):
    plan = build_plan(
        _lines(tmp_path, json.loads(GOOD.read_text())), palette={"CONTROLS": "operation"}
    )
    cats = {e["label"]: e["category"] for e in plan.edges}
    assert cats == {"CONTROLS": "operation", "MEASURES": None}


def test_one_path_per_domain_and_signature_in_the_sample(shared_data):
    result = validate_files([shared_data / "perspectivebench" / "sample.jsonl"])
    plan = build_plan(result.questions)
    signatures = {(q.domain, p.path.signature) for _, q in result.questions for p in q.valid_paths}
    assert len(plan.paths) == len(signatures)
    assert len({p["uid"] for p in plan.paths}) == len(plan.paths)
    assert len(plan.targets) + len(plan.distractors) == sum(
        len(q.valid_paths) for _, q in result.questions
    )


def test_domain_palettes_take_precedence(tmp_path):
    plan = build_plan(
        _lines(tmp_path, json.loads(GOOD.read_text())),
        palette={"CONTROLS": "generic", "MEASURES": "watching"},
        domain_palettes={"ostra": {"CONTROLS": "operation"}, "other": {"MEASURES": "never"}},
    )
    cats = {e["label"]: e["category"] for e in plan.edges}
    assert cats == {"CONTROLS": "operation", "MEASURES": "watching"}
