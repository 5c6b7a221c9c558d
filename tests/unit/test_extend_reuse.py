"""`kg build --extend` reuses the earlier concept a new cluster reproduces (issue 27)."""

from __future__ import annotations

from construction.pipeline.clustering import (
    cluster_keys,
    keep_earlier_memberships,
    reused_concepts,
)


def _facts(n: int) -> list[dict]:
    return [{"uid": f"f{i}"} for i in range(n)]


EARLIER = [
    {"uid": "u0", "key": "topic_0", "facts": ["f0", "f1", "f2", "f3"]},
    {"uid": "u1", "key": "topic_1", "facts": ["f4", "f5", "f6"]},
    {"uid": "u2", "key": "topic_2", "facts": ["f7", "f8"]},
    {"uid": "u3", "key": "topic_3", "facts": ["f11", "f12"]},
]


def test_a_grown_cluster_reuses_its_concept_a_merging_one_does_not():
    # cluster 0: topic_0's facts and two new ones (f9, f10): reused despite a Jaccard of 4/6;
    # cluster 1: parts of topic_1, topic_2 and topic_3, none the majority: a new, coarser
    # concept; cluster 2: new facts only
    labels = [0, 0, 0, 0, 1, 1, -1, 1, -1, 0, 0, 1, 1, 2, 2]
    reused = reused_concepts(_facts(15), labels, EARLIER)
    assert {k: c["key"] for k, c in reused.items()} == {0: "topic_0"}
    assert cluster_keys(labels, reused, offset=4) == ["topic_0", "topic_4", "topic_5"]


def test_each_earlier_concept_is_reused_once_best_overlap_first():
    labels = [0, 0, 1, 1, -1, -1, -1, -1, -1]
    reused = reused_concepts(_facts(9), labels, EARLIER[:1])
    assert list(reused) == [0] or list(reused) == [1]
    assert len(reused) == 1


def test_an_earlier_member_keeps_its_membership_only_soft_keys_are_written():
    reused = {0: EARLIER[0]}
    rows = [
        {"fact": "f0", "concept": "u0", "soft_keys": ["topic_0"]},
        {"fact": "f9", "concept": "u0", "soft_keys": ["topic_0"]},
        {"fact": "f7", "concept": "u9", "soft_keys": []},
    ]
    out = keep_earlier_memberships(rows, reused)
    assert [r["concept"] for r in out] == [None, "u0", "u9"]
    assert out[0]["soft_keys"] == ["topic_0"]
