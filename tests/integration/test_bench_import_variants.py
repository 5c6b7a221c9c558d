"""Import variants on a real Neo4j: --skip-invalid, disagreeing lines, palettes, built questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.perspectivebench.exporter import export_perspectivebench, question_lines
from construction.perspectivebench.importer import import_perspectivebench
from kg import ids

pytestmark = pytest.mark.integration

MALFORMED = Path(__file__).resolve().parents[1] / "data" / "malformed"


def _good(**changes) -> dict:
    obj = json.loads((MALFORMED / "good.jsonl").read_text())
    obj.update(changes)
    return obj


def _write(path: Path, *lines: str | dict) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_skip_invalid_imports_good_lines_and_writes_rejects(store, tmp_path):
    bad = (MALFORMED / "cypher_label.jsonl").read_text().strip().replace('"id": 1', '"id": 9')
    f = _write(tmp_path / "mixed.jsonl", _good(id=1), bad, _good(id=2, perspective_theme="B"))
    rejects = tmp_path / "rejects.jsonl"
    report = import_perspectivebench(store, [f], skip_invalid=True, rejects_path=rejects)
    assert report.questions_written == 2
    assert report.invalid_skipped == 1
    [reject] = [json.loads(x) for x in rejects.read_text().splitlines()]
    assert reject["line"] == 2
    assert "invalid relation label" in reject["errors"][0]
    assert json.loads(reject["text"])["id"] == 9
    ids_in_graph = sorted(o["id"] for o in question_lines(store, "ostra"))
    assert ids_in_graph == [1, 2]
    # the label with Cypher metacharacters never reached the graph
    labels = {r["label"] for r in store.query("bench/all_edges", domain="ostra")}
    assert labels == {"CONTROLS", "MEASURES"}


def test_disagreeing_lines_round_trip_exactly(store, tmp_path):
    a = _good(id=11, domain="variants")
    b = _good(id=12, domain="variants")
    b["full_content_pool"]["topic_1_source"]["Summary"] = "A second summary of the controller."
    b["full_content_pool"]["topic_1_source"].pop("Topic Words")
    b["valid_paths"][1]["reason"] = "A second reason for measuring."
    f = _write(tmp_path / "variants.jsonl", a, b)
    report = import_perspectivebench(store, [f])
    warn = [w for w in report.warnings if "two summaries" in w.message]
    assert len(warn) == 1 and "A second summary" in warn[0].message
    out = tmp_path / "out.jsonl"
    export_perspectivebench(store, out, domain="variants")
    assert [json.loads(x) for x in out.read_text().splitlines()] == [a, b]
    # a later file with yet another summary: the graph's version stays canonical
    c = _good(id=13, domain="variants")
    c["full_content_pool"]["topic_1_source"]["Summary"] = "A third summary."
    report = import_perspectivebench(store, [_write(tmp_path / "third.jsonl", c)])
    assert any("the graph" in w.message for w in report.warnings)
    export_perspectivebench(store, out, domain="variants")
    assert [json.loads(x) for x in out.read_text().splitlines()] == [a, b, c]


def test_palette_sets_categories(store, tmp_path):
    f = _write(tmp_path / "pal.jsonl", _good(id=21, domain="palette"))
    import_perspectivebench(store, [f], palette={"CONTROLS": "operation"})
    rows = store.run_text(
        "MATCH ()-[r:RELATES {domain: 'palette'}]->() "
        "RETURN r.label AS label, r.category AS category ORDER BY label"
    )
    assert rows == [
        {"label": "CONTROLS", "category": "operation"},
        {"label": "MEASURES", "category": None},
    ]


def test_a_question_built_with_the_graph_model_exports(store, tmp_path):
    """Nodes written the way the construction pipeline writes them (no POOL links, unranked
    IN_CONCEPT facts, no per-path reasons) still export every field."""
    dom = "built"
    store.run_text(
        """
        MERGE (d:Domain {name: $dom})
        WITH d
        UNWIND $concepts AS c
        MERGE (n:Concept {uid: c.uid}) SET n.domain = $dom, n.key = c.key, n.summary = c.summary,
          n.topic_words = c.words
        MERGE (n)-[:IN_DOMAIN]->(d)
        MERGE (f:Fact {uid: c.fact_uid}) SET f.domain = $dom, f.text = c.fact
        MERGE (f)-[:IN_CONCEPT {prob: 0.9}]->(n)
        """,
        dom=dom,
        concepts=[
            {
                "uid": ids.concept_uid(dom, k),
                "key": k,
                "summary": f"About {k}.",
                "words": [k, "x"],
                "fact": f"{k} is a fact.",
                "fact_uid": ids.fact_uid(dom, f"{k} is a fact."),
            }
            for k in ("c1", "c2")
        ],
    )
    edges = [("CAUSES", "c1 causes c2."), ("PRECEDES", "c1 comes before c2.")]
    for label, reason in edges:
        e_uid = ids.relates_uid(dom, "c1", label, "c2")
        sig = f"c1 -- {label} --> c2"
        store.run_text(
            """
            MATCH (a:Concept {uid: $a}), (b:Concept {uid: $b})
            MERGE (a)-[r:RELATES {uid: $e}]->(b) SET r.label = $label, r.reason = $reason,
              r.domain = $dom
            MERGE (p:Path {uid: $p}) SET p.domain = $dom, p.signature = $sig, p.hops = 1,
              p.labels = [$label], p.concept_keys = ['c1', 'c2'], p.edge_uids = [$e]
            MERGE (p)-[:STARTS]->(a) MERGE (p)-[:ENDS]->(b)
            """,
            a=ids.concept_uid(dom, "c1"),
            b=ids.concept_uid(dom, "c2"),
            e=e_uid,
            label=label,
            reason=reason,
            dom=dom,
            p=ids.path_uid(dom, sig),
            sig=sig,
        )
    store.run_text(
        """
        MERGE (q:Question {uid: $uid}) SET q.id = 500, q.domain = $dom, q.theme = 'Causal',
          q.text = 'Why?', q.hop = 1
        WITH q
        MATCH (t:Path {uid: $t}), (d:Path {uid: $d}), (f:Fact {uid: $f})
        MERGE (q)-[:TARGET {pos: 0}]->(t)
        MERGE (q)-[:DISTRACTOR {pos: 1}]->(d)
        MERGE (q)-[:EVIDENCE {rank: 0}]->(f)
        """,
        uid=ids.question_uid(dom, 500),
        dom=dom,
        t=ids.path_uid(dom, "c1 -- CAUSES --> c2"),
        d=ids.path_uid(dom, "c1 -- PRECEDES --> c2"),
        f=ids.fact_uid(dom, "c1 is a fact."),
    )
    out = tmp_path / "built.jsonl"
    assert export_perspectivebench(store, out, domain=dom) == 1
    line = json.loads(out.read_text())
    assert line == {
        "id": 500,
        "domain": dom,
        "perspective_theme": "Causal",
        "perspective_target_question": "Why?",
        "perspective_valid_paths": [{"path_0": "c1 -- CAUSES --> c2", "reason": "c1 causes c2."}],
        "focused_evidence": ["c1 is a fact."],
        "valid_paths": [
            {"path_0": "c1 -- CAUSES --> c2", "reason": "c1 causes c2."},
            {"path_1": "c1 -- PRECEDES --> c2", "reason": "c1 comes before c2."},
        ],
        "full_content_pool": {
            "c1": {
                "Summary": "About c1.",
                "Topic Words": "['c1', 'x']",
                "Key Evidence": ["c1 is a fact."],
            },
            "c2": {
                "Summary": "About c2.",
                "Topic Words": "['c2', 'x']",
                "Key Evidence": ["c2 is a fact."],
            },
        },
    }
    # and the exported line imports back cleanly
    report = import_perspectivebench(store, [out])
    assert report.errors == [] and report.questions_written == 1
