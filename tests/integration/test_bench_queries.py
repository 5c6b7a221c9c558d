"""Paths, perspectives, statistics, concepts and questions on the imported sample (real Neo4j)."""

from __future__ import annotations

import json
from collections import defaultdict
from statistics import mean

import networkx as nx
import pytest

from construction.perspectivebench.importer import import_perspectivebench
from kg import ids
from kg.palette import parse_palette
from kg.queries.concepts import find_concept, list_concepts, search_concepts
from kg.queries.paths import paths_between
from kg.queries.perspectives import group_perspectives
from kg.queries.questions import annotate_perspectives, question_details
from kg.queries.stats import benchmark_stats

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sample(shared_data):
    return shared_data / "perspectivebench" / "sample.jsonl"


@pytest.fixture(scope="module")
def physics_palette(shared_data):
    doc = json.loads(
        (shared_data / "perspectivebench" / "raw" / "pyhsic_init_palette.json").read_text(
            encoding="utf-8"
        )
    )
    return parse_palette(doc).category_map()


@pytest.fixture(scope="module")
def graph(store, sample):
    import_perspectivebench(store, [sample])
    return store


def _nx_paths(store, domain: str, a: str, b: str, cutoff: int = 3) -> set:
    g = nx.MultiDiGraph()
    for e in store.query("bench/all_edges", domain=domain):
        g.add_edge(e["source"], e["target"], key=e["uid"], label=e["label"])
    out = set()
    for edges in nx.all_simple_edge_paths(g, a, b, cutoff=cutoff):
        keys = tuple([edges[0][0]] + [v for _, v, _ in edges])
        labels = tuple(g.edges[u, v, k]["label"] for u, v, k in edges)
        out.add((keys, labels))
    return out


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("topic_3", "topic_13"),
        ("topic_17", "topic_6"),
        ("topic_11", "topic_17"),
        ("topic_10", "topic_2"),
    ],
)
def test_cypher_paths_equal_networkx_simple_paths(graph, start, end):
    groups = paths_between(
        graph, ids.concept_uid("physics", start), ids.concept_uid("physics", end), max_hops=3
    )
    got = {(tuple(p.keys), tuple(p.labels)) for g in groups for p in g.paths}
    assert got, "no path found"
    assert got == _nx_paths(graph, "physics", start, end)
    for g in groups:  # grouped by label signature, each edge with its reason
        assert all(p.labels == g.labels for p in g.paths)
        assert all(len(p.reasons) == p.hops and all(p.reasons) for p in g.paths)


def test_max_hops_limits_the_paths(graph):
    a, b = ids.concept_uid("physics", "topic_17"), ids.concept_uid("physics", "topic_6")
    three = [p for g in paths_between(graph, a, b, max_hops=3) for p in g.paths]
    one = [p for g in paths_between(graph, a, b, max_hops=1) for p in g.paths]
    assert all(p.hops <= 1 for p in one)
    assert len(one) < len(three)
    with pytest.raises(ValueError):
        paths_between(graph, a, b, max_hops=4)


def test_perspectives_by_palette_category(graph, physics_palette):
    groups = group_perspectives(
        graph, "physics", "topic_3", "topic_13", physics_palette, by="category"
    )
    by_name = {g.name: g for g in groups}
    causal = by_name["causal_relations @ hop 1"]
    assert sorted(p.labels[0] for p in causal.paths) == [
        "CAUSES",
        "ENABLES_FUNCTION",
        "EXPLAINS_PHENOMENON",
    ]
    assert [q.id for q in causal.questions] == [0]
    assert [q.id for q in by_name["temporal_procedural_relations @ hop 1"].questions] == [1]


def test_by_label_each_relation_of_a_one_hop_pair_is_a_perspective(graph):
    groups = group_perspectives(graph, "physics", "topic_3", "topic_13")
    assert sorted(g.name for g in groups) == [
        "CAUSES @ hop 1",
        "ENABLES_FUNCTION @ hop 1",
        "EXPLAINS_PHENOMENON @ hop 1",
        "PRECEDES @ hop 1",
    ]
    assert all(g.selected and g.group_size == 4 for g in groups)


def test_three_hop_perspectives_share_a_relation_at_one_hop(graph, sample):
    groups = group_perspectives(graph, "physics", "topic_17", "topic_6")
    group = {s for g in groups for s in g.signatures}
    for hop in {g.hop for g in groups}:  # the candidates of a hop partition the paths
        at = [g for g in groups if g.hop == hop]
        assert sorted(s for g in at for s in g.signatures) == sorted(group)
        assert all({p.labels[hop - 1] for p in g.paths} == {g.focus} for g in at)
    lines = [json.loads(x) for x in sample.read_text(encoding="utf-8").splitlines()]
    asked = [d for d in lines if d["id"] in {2, 3}]
    for d in asked:  # each published target set is one perspective, with its question
        targets = {
            next(v for k, v in p.items() if k.startswith("path_"))
            for p in d["perspective_valid_paths"]
        }
        [match] = [g for g in groups if set(g.signatures) == targets]
        assert [q.id for q in match.questions] == [d["id"]]


def test_stats_match_the_file(graph, sample):
    lines = [json.loads(x) for x in sample.read_text(encoding="utf-8").splitlines()]
    by = defaultdict(list)
    for d in lines:
        hop = max(
            p[next(k for k in p if k.startswith("path_"))].count("-->")
            for p in d["perspective_valid_paths"]
        )
        by[(d["domain"], hop)].append(d)
    rows = {(r.domain, r.hop): r for r in benchmark_stats(graph)}
    for key, qs in by.items():
        r = rows[key]
        assert r.questions == len(qs)
        assert r.mean_valid == pytest.approx(mean(len(d["valid_paths"]) for d in qs))
        assert r.mean_targets == pytest.approx(mean(len(d["perspective_valid_paths"]) for d in qs))
        prec = [len(d["perspective_valid_paths"]) / len(d["valid_paths"]) for d in qs]
        assert r.cover_all_precision == pytest.approx(mean(prec))
        assert r.cover_all_recall == 1.0
        assert r.cover_all_pas == pytest.approx(mean(2 * p / (1 + p) for p in prec))
    total = rows[("ALL", "ALL")]
    assert total.questions == len(lines)
    prec = [len(d["perspective_valid_paths"]) / len(d["valid_paths"]) for d in lines]
    assert total.cover_all_pas == pytest.approx(mean(2 * p / (1 + p) for p in prec))
    only = benchmark_stats(graph, "biology")
    assert {r.domain for r in only} == {"biology", "ALL"}


def test_concept_lookup(graph):
    hits = search_concepts(graph, "radioactive dating", domain="physics")
    assert hits[0].key == "topic_13"
    assert find_concept(graph, "topic_3").ambiguous  # topic_3 exists in several domains
    m = find_concept(graph, "topic_3", domain="physics")
    assert m.how == "key" and m.chosen.key == "topic_3"
    assert find_concept(graph, "zzzqqq nothing").how == "none"
    assert search_concepts(graph, 'force) OR (x:"') is not None  # special characters are safe
    listed = list_concepts(graph, domain="physics")
    assert {c.key for c in listed} >= {"topic_3", "topic_13"}


def test_question_detail_with_perspectives(graph, physics_palette):
    [q] = question_details(graph, 0, "physics")
    assert len(q.targets) == 3 and len(q.distractors) == 1
    assert q.endpoints == ("topic_3", "topic_13")
    annotate_perspectives(graph, q, physics_palette)
    assert [p.perspective for p in q.distractors] == ["PRECEDES @ hop 1"]
    [q2] = question_details(graph, 2, "physics")
    annotate_perspectives(graph, q2)
    assert all("IS_A_SPECIAL_CASE_OF @ hop 2 *" in (p.perspective or "") for p in q2.targets)
    assert not any("*" in (p.perspective or "") for p in q2.distractors)


def test_all_pairs_query_matches_networkx(graph):
    """The all-pairs route of benchmarks/bench_allpaths.py, on the imported physics sample."""
    from kg.paths import format_signature

    cypher = {s for r in graph.read("bench/all_paths", domain="physics") for s in r["signatures"]}
    g = nx.MultiDiGraph()
    for e in graph.query("bench/all_edges", domain="physics"):
        g.add_edge(e["source"], e["target"], key=e["uid"], label=e["label"])
    expected = set()
    for source in g.nodes:
        for edges in nx.all_simple_edge_paths(g, source, set(g.nodes) - {source}, cutoff=3):
            keys = [edges[0][0]] + [v for _, v, _ in edges]
            expected.add(format_signature(keys, [g.edges[e]["label"] for e in edges]))
    assert cypher == expected and len(cypher) > 100
