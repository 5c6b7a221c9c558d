"""Unit tests of the stage logic that needs no database: duplicates, c-TF-IDF, pair scores,
reply validation, evidence picking, naming and themes."""

from __future__ import annotations

import numpy as np
import pytest

from construction.pipeline.concepts import SummaryReply, offline_name, offline_summary
from construction.pipeline.config import BuildConfig
from construction.pipeline.context import StageReport
from construction.pipeline.embeddings import duplicate_pairs
from construction.pipeline.evidence import EvidenceReply, offline_pick, quoted_facts
from construction.pipeline.llm_route import RejectedReply
from construction.pipeline.pairs import kept_pairs, score_matrices
from construction.pipeline.paths import signature, theme_of
from construction.pipeline.relations import RelationItem, validate_relation
from kg.llm.structured import parse_reply
from kg.palette import parse_palette


def _unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def test_near_duplicates_fold_into_the_first_of_their_group():
    vecs = _unit([[1, 0, 0], [0.999, 0.01, 0], [0, 1, 0], [0.998, 0.02, 0.0], [0, 0, 1]])
    pairs = duplicate_pairs(["a", "b", "c", "d", "e"], vecs, 0.95)
    assert {(k, d) for k, d, _ in pairs} == {("a", "b"), ("a", "d")}
    assert all(c >= 0.95 for _, _, c in pairs)
    assert duplicate_pairs(["a"], vecs[:1], 0.95) == []


def test_facts_an_earlier_generation_uses_are_never_folded_away():
    # "b" and "d" are used by an earlier build generation (`--extend`): "a", the first fact of
    # the group, is folded into "b", and "d" (a duplicate, but used) is not merged at all
    vecs = _unit([[1, 0, 0], [0.999, 0.01, 0], [0, 1, 0], [0.998, 0.02, 0.0], [0, 0, 1]])
    pairs = duplicate_pairs(["a", "b", "c", "d", "e"], vecs, 0.95, frozenset({"b", "d"}))
    assert {(k, d) for k, d, _ in pairs} == {("b", "a")}


def _fact(uid, concept, pos, ents, soft):
    return {
        "uid": uid,
        "concept": concept,
        "positions": [pos],
        "entities": ents,
        "soft_keys": list(soft),
        "soft_probs": list(soft.values()),
    }


def test_pair_scores_are_set_wise_and_follow_the_published_rules():
    src = "book.txt"
    facts = [
        # topic_0 / topic_1 share 3 entities, 3x3 near fact pairs, and bridge softly both ways
        *[
            _fact(
                f"a{i}", "topic_0", (src, i), ["e1", "e2", "e3"], {"topic_0": 0.9, "topic_1": 0.2}
            )
            for i in range(3)
        ],
        *[
            _fact(
                f"b{i}",
                "topic_1",
                (src, i + 2),
                ["e1", "e2", "e3"],
                {"topic_1": 0.9, "topic_0": 0.2},
            )
            for i in range(2)
        ],
        *[_fact("b2", "topic_1", (src, 4), ["e3"], {"topic_1": 0.9, "topic_0": 0.3})],
        # topic_2 shares one entity with topic_0, far away in another source
        _fact("c0", "topic_2", ("other.txt", 50), ["e1"], {"topic_2": 1.0}),
        _fact("c1", "topic_2", ("other.txt", 51), ["x"], {"topic_2": 1.0}),
    ]
    cfg = BuildConfig(domain="d", top_k_pairs=None)
    scores = score_matrices(facts, cfg)
    total = scores.score()
    assert scores.keys == ["topic_0", "topic_1", "topic_2"]
    assert scores.shared[0][1] == 3 and scores.near[0][1] == 9 and scores.bridge[0][1]
    assert total[0, 1] == 5 + 3 + 1
    assert total[0, 2] == 4  # one shared entity, nothing near, no bridge
    assert total[1, 2] == 4
    assert [(i, j) for i, j, _ in kept_pairs(scores, cfg)] == [(0, 1), (0, 2), (1, 2)]
    strict = BuildConfig(domain="d", min_pair_score=5, top_k_pairs=None)
    assert [(i, j) for i, j, _ in kept_pairs(scores, strict)] == [(0, 1)]
    top1 = BuildConfig(domain="d", top_k_pairs=1)
    # the best pair of every concept: (0,1) for topic_0 and topic_1, one of the 4s for topic_2
    kept = kept_pairs(scores, top1)
    assert (0, 1, 9) in kept and len(kept) == 2


@pytest.fixture
def palette():
    return parse_palette(
        {
            "causal": {"relations": [{"name": "CAUSES"}, {"name": "REDUCES"}]},
            "order": {"relations": [{"name": "PRECEDES"}]},
        }
    )


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (RelationItem(source="topic_1", target="topic_1", label="CAUSES", reason="r"), "self_loop"),
        (
            RelationItem(source="topic_1", target="topic_9", label="CAUSES", reason="r"),
            "wrong_endpoints",
        ),
        (RelationItem(source="topic_1", target="topic_2", label="causes", reason="r"), "bad_label"),
        (
            RelationItem(source="topic_1", target="topic_2", label="INVENTS", reason="r"),
            "unknown_label",
        ),
        (
            RelationItem(source="topic_1", target="topic_2", label="CAUSES", reason="  "),
            "missing_field",
        ),
    ],
)
def test_invalid_relations_are_rejected_with_a_reason(palette, item, reason):
    with pytest.raises(RejectedReply) as err:
        validate_relation(item, "topic_1", "topic_2", palette, allow_new=False)
    assert err.value.reason == reason


def test_relations_in_both_directions_and_new_labels_when_allowed(palette):
    back = RelationItem(source="topic_2", target="topic_1", label="PRECEDES", reason="r  s")
    assert validate_relation(back, "topic_1", "topic_2", palette, False) == (
        "topic_2",
        "PRECEDES",
        "topic_1",
        "order",
        "r s",
    )
    new = RelationItem(
        source="topic_1",
        target="topic_2",
        label="FEEDS",
        reason="r",
        description="A provides input to B",
        category="causal",
    )
    with pytest.raises(RejectedReply, match="unknown_label"):
        validate_relation(new, "topic_1", "topic_2", palette, allow_new=False)
    assert validate_relation(new, "topic_1", "topic_2", palette, allow_new=True)[3] == "causal"
    assert palette.new_relations["FEEDS"].description == "A provides input to B"
    undescribed = RelationItem(source="topic_1", target="topic_2", label="GROWS", reason="r")
    with pytest.raises(RejectedReply, match="missing_field"):
        validate_relation(undescribed, "topic_1", "topic_2", palette, allow_new=True)


def test_offline_evidence_covers_every_concept_then_the_best_rest():
    cands = [
        {"uid": "a1", "concept": "t0", "text": "A1."},
        {"uid": "a2", "concept": "t0", "text": "A2."},
        {"uid": "b1", "concept": "t1", "text": "B1."},
        {"uid": "b2", "concept": "t1", "text": "B2."},
    ]
    picked = offline_pick(cands, np.array([0.9, 0.8, 0.1, 0.05]), 3)
    assert [cands[i]["uid"] for i in picked] == ["a1", "a2", "b1"]


def test_llm_evidence_must_quote_existing_facts():
    cands = [{"uid": "f1", "concept": "t0", "text": "Alum makes fine particles clump."}]
    rep = StageReport(stage="evidence")
    reply = EvidenceReply(evidence=["alum makes fine  particles clump.", "Invented fact."])
    assert quoted_facts(reply, cands, rep) == ["f1"]
    assert rep.rejected == 1 and rep.counts == {"rejected_evidence_not_a_fact": 1}


def test_names_themes_signatures():
    facts = ["Water towers store water.", "The water towers create pressure in the network."]
    assert offline_name(["water towers", "pressure"], set(), facts) == "water towers"
    # a phrase that occurs in no fact, or a generic word, never names the concept
    assert offline_name(["answer", "treatment plant", "pressure"], set(), facts) == "pressure"
    assert offline_name(["pressure"], {"pressure"}) != "pressure"
    assert offline_summary("Central fact.", ["a", "b"]) == "Central fact. (Topic words: a, b.)"
    assert theme_of("category", ["causal_and_consequential_relations"]) == "Causal/Consequential"
    assert theme_of("label", ["IS_A_TYPE_OF"]) == "Is A Type Of"
    assert signature(["topic_1", "topic_2", "topic_3"], ["A", "B"]) == (
        "topic_1 -- A --> topic_2 -- B --> topic_3"
    )
    # A stage's reply in a code fence is the client's to unwrap (kg.llm.structured).
    assert parse_reply('```json\n{"name": "n", "summary": "s"}\n```', SummaryReply).name == "n"


def test_hdbscan_finds_blobs_keeps_outliers_and_soft_memberships(caplog):
    from construction.pipeline.clustering import cluster_vectors

    rng = np.random.default_rng(0)
    centers = _unit(rng.normal(size=(3, 16)))
    blobs = [_unit(c + 0.05 * rng.normal(size=(20, 16))) for c in centers]
    noise = _unit(rng.normal(size=(3, 16)))
    vecs = np.vstack([*blobs, noise]).astype(np.float32)
    cfg = BuildConfig(domain="d", use_umap=False)
    with caplog.at_level("INFO", logger="kg.build"):
        result = cluster_vectors(vecs, cfg, len(vecs))
    assert result.min_cluster_size == 3 and "scaled from 10 to 3" in caplog.text
    labels = np.asarray(result.labels)
    assert len(set(labels[labels >= 0])) == 3
    for k in range(3):  # each blob is one cluster
        assert len(set(labels[k * 20 : (k + 1) * 20])) == 1
    assert len(result.soft[0]) == 3 and all(0 <= p <= 1 for p in result.probs)
    assert not result.reduced
