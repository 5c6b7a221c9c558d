"""Unit tests of `kg validate`'s checks on in-memory rows (the CLI and the queries are tested
against the server in tests/integration/test_build_demo.py)."""

from __future__ import annotations

from construction.quality.validate import (
    check_duplicates,
    check_evidence,
    check_groundedness,
    check_hop_distribution,
    check_hops,
    check_naming,
    check_paths_in_graph,
    check_structure,
    hop_rows,
)


def _path(keys, labels):
    sig = keys[0] + "".join(f" -- {lab} --> {k}" for lab, k in zip(labels, keys[1:], strict=True))
    return {"uid": sig, "hops": len(labels), "labels": labels, "keys": keys, "signature": sig}


def _q(i, targets, distractors, text="q", hop=1, evidence=()):
    return {
        "id": i,
        "text": text,
        "hop": hop,
        "targets": targets,
        "distractors": distractors,
        "evidence": list(evidence),
        "pool": [],
    }


CONCEPTS = {
    "t0": {
        "key": "t0",
        "name": "friction",
        "terms": [],
        "topic_words": [],
        "facts": ["Friction heats the surfaces."],
    },
    "t1": {
        "key": "t1",
        "name": "thermal energy",
        "terms": ["heat"],
        "topic_words": [],
        "facts": ["Thermal energy flows from hot to cold."],
    },
}


def test_structure_needs_a_target_and_a_distractor():
    p = _path(["t0", "t1"], ["CAUSES"])
    ok, bad = _q(0, [p], [p]), _q(1, [p], [])
    check = check_structure([ok, bad])
    assert check.status == "fail" and check.offending == ["q1: 1 targets, 0 distractors"]
    assert check_structure([ok]).status == "pass"


def test_hops_and_paths_must_exist_in_the_graph():
    good = _path(["t0", "t1"], ["CAUSES"])
    missing = _path(["t1", "t0"], ["REDUCES"])
    four = _path(["a", "b", "c", "d", "e"], ["X", "X", "X", "X"])
    edges = [{"source": "t0", "label": "CAUSES", "target": "t1"}]
    qs = [_q(0, [good], [missing]), _q(1, [four], [good])]
    assert check_hops(qs).status == "fail" and "4 hops" in check_hops(qs).offending[0]
    graph = check_paths_in_graph(qs, edges)
    assert graph.status == "fail"
    assert any("no edge t1 -REDUCES-> t0" in o for o in graph.offending)


def test_evidence_must_come_from_the_pool_verbatim():
    pool = {"friction heats the surfaces."}
    ok = _q(0, [], [], evidence=[{"text": "Friction heats  the surfaces.", "domain": "d"}])
    bad = _q(1, [], [], evidence=[{"text": "Invented.", "domain": "d"}])
    assert check_evidence([ok], "d", pool).status == "pass"
    assert check_evidence([ok, bad], "d", pool).status == "fail"
    assert check_evidence([_q(2, [], [])], "d", pool).status == "warn"  # no evidence at all


def test_groundedness_counts_reasons_quoting_a_fact_with_both_endpoints():
    pool = ["Friction turns kinetic energy into heat.", "Friction depends on the surfaces."]
    edges = [
        {
            "source": "t0",
            "label": "CAUSES",
            "target": "t1",
            "reason": "Friction turns kinetic energy into heat.",
        },  # grounded (term)
        {
            "source": "t0",
            "label": "CAUSES",
            "target": "t1",
            "reason": "Friction depends on the surfaces.",
        },  # misses thermal energy
        {
            "source": "t1",
            "label": "REDUCES",
            "target": "t0",
            "reason": "Topic 1 explains why topic 0 matters.",
        },  # quotes nothing
    ]
    check, share = check_groundedness(edges, CONCEPTS, pool)
    assert abs(share - 1 / 3) < 1e-9 and check.status == "fail"
    assert "quoted facts miss an endpoint" in check.offending[0]
    assert "quotes no fact" in check.offending[1]
    assert check_groundedness(edges[:1], CONCEPTS, pool)[0].status == "pass"


def test_naming_fails_on_generic_names_and_names_absent_from_the_facts():
    check, share = check_naming(CONCEPTS)
    assert check.status == "pass" and share == 1.0
    junk = {
        **CONCEPTS,
        "t2": {
            "key": "t2",
            "name": "Answer",
            "terms": [],
            "topic_words": [],
            "facts": ["For many, the answer is surprising."],
        },
    }
    check, _ = check_naming(junk)
    assert check.status == "fail" and "generic word" in check.offending[0]
    unnamed = {k: {**c, "name": None} for k, c in CONCEPTS.items()}
    assert check_naming(unnamed)[0].status == "warn"


def test_duplicate_question_texts_fail():
    qs = [_q(0, [], [], "Explain X."), _q(1, [], [], "explain  x."), _q(2, [], [], "Other.")]
    check, n = check_duplicates(qs)
    assert check.status == "fail" and n == 1
    assert check_duplicates(qs[1:])[0].status == "pass"


def test_hop_rows_sit_beside_the_papers_table():
    p1, p2 = _path(["a", "b"], ["X"]), _path(["a", "b", "c"], ["X", "Y"])
    qs = [_q(0, [p1], [p1, p1], hop=1), _q(1, [p2, p2], [p2], hop=2)]
    rows = hop_rows("physics", qs)
    assert [r.questions for r in rows] == [1, 1, 0]
    assert rows[0].avg_total == 3 and rows[0].avg_target == 1 and rows[1].avg_target == 2
    assert [r.paper_questions for r in rows] == [114, 161, 58]
    check = check_hop_distribution(rows, True)
    assert check.status == "warn" and check.offending == ["3-hop: no questions"]
    pooled = hop_rows("history", qs)  # not in the stored Table 1: physics + biology pooled
    assert [r.paper_questions for r in pooled] == [217, 325, 119]


def test_perspectives_check_warns_on_a_target_set_no_hop_shares():
    from construction.quality.validate import check_perspectives
    from kg.queries.models import GraphPath, Perspective

    a, b, c = _path(["x", "y"], ["A"]), _path(["x", "y"], ["B"]), _path(["x", "y"], ["C"])

    def view(path, focus):
        gp = GraphPath(**path, reasons=[None], edge_uids=["e"])
        return Perspective(
            concept_keys=["x", "y"], hop=1, focus=focus, foci_at_hop=3, group_size=3, paths=[gp]
        )

    views = [view(a, "A"), view(b, "B"), view(c, "C")]
    good = check_perspectives([_q(1, [a], [b, c])], views)
    assert (good.status, good.value) == ("pass", "1/1")
    bad = check_perspectives([_q(1, [a], [b, c]), _q(2, [a, b], [c])], views)
    assert (bad.status, bad.value) == ("warn", "1/2") and bad.offending[0].startswith("q2:")
