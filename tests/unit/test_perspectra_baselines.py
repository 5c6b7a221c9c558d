"""Offline baselines and opinion matching on hand-made vectors (the real model runs in the
integration tests and the benchmark)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering

from construction.perspectra.matching import top_k
from evaluation.perspectra.baselines import (
    BASELINE_NAMES,
    clusters_at,
    merge_heights,
    t2_baseline,
    t3_baseline,
    tune_threshold,
)
from kg.queries.perspectra_corpus import CExpansion, COpinion, Corpus, CTopic
from kg.task_items import TaskItem


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_cluster_count_matches_sklearn_agglomerative() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.normal(size=(int(rng.integers(2, 9)), 6))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        for t in (0.2, 0.5, 0.9):
            ref = AgglomerativeClustering(
                n_clusters=None, distance_threshold=t, metric="cosine", linkage="average"
            ).fit(x)
            assert clusters_at(merge_heights(x), t) == ref.n_clusters_


def test_single_expansion_is_one_cluster() -> None:
    assert clusters_at(merge_heights(np.ones((1, 3))), 0.5) == 1


def test_threshold_tuned_to_the_dev_items() -> None:
    # two pairs (cosine distance 0.2 within) far apart from each other
    x = np.stack(
        [_unit(1, 0.5, 0, 0), _unit(1, 0, 0.5, 0), _unit(0, 0, 1, 0.5), _unit(0, 0.5, 1, 0)]
    )
    h = merge_heights(x)
    t, acc = tune_threshold([h, h], [2, 2])
    assert acc == 1.0 and clusters_at(h, t) == 2
    t4, _ = tune_threshold([h], [4])
    assert clusters_at(h, t4) == 4


class FakeEncoder:
    """Maps known texts to fixed unit vectors, counting what it was asked."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.stack([self.table[t] for t in texts])


def _item(**kw) -> TaskItem:
    base = dict(
        uid="u",
        task="t2",
        build="b",
        index=0,
        seed=1,
        topic_uid="T",
        topic="topic",
        text="e",
        expansion_uids=["e"],
        expansion_opinions=["o1"],
        opinion_uids=["o1"],
        gold="A",
    )
    return TaskItem(**{**base, **kw})


def test_t2_most_similar_option() -> None:
    enc = FakeEncoder({"exp": _unit(1, 0.2), "op A": _unit(0, 1), "op B": _unit(1, 0.1)})
    item = _item(
        text="exp",
        options=["op A", "op B"],
        option_uids=["a", "b"],
        option_stances=["pro", "con"],
        gold="B",
        gold_stance="con",
    )
    res = t2_baseline([item], enc)
    assert res.replies == ["B"] and res.name == BASELINE_NAMES["t2"]
    assert len(enc.calls) == 1 and len(enc.calls[0]) == 3  # each distinct text once


def test_t3_centroid_side() -> None:
    topic = CTopic(
        "T",
        "topic",
        (
            COpinion("p1", "pro 1", "pro", (CExpansion("e1", "x1"),)),
            COpinion("p2", "pro 2", "pro", ()),
            COpinion("c1", "con 1", "con", (CExpansion("e2", "x2"),)),
        ),
    )
    enc = FakeEncoder(
        {
            "pro 1": _unit(1, 0, 0),
            "pro 2": _unit(1, 0.3, 0),
            "con 1": _unit(0, 0, 1),
            "x1": _unit(0.9, 0, 0.2),
            "x2": _unit(0.1, 0, 1),
        }
    )
    items = [
        _item(task="t3", text="x1", expansion_uids=["e1"], gold="pro"),
        _item(task="t3", uid="v", text="x2", expansion_uids=["e2"], gold="con"),
    ]
    res = t3_baseline(items, Corpus((topic,)), enc)
    assert res.replies == ["pro", "con"]


def test_top_k_matches_best_first() -> None:
    ops = np.stack([_unit(1, 0), _unit(0, 1)])
    com = np.stack([_unit(0.6, 0.8), _unit(1, 0), _unit(0.8, 0.6), _unit(0, 1)])
    best = top_k(ops, com, 3)
    assert [j for j, _ in best[0]] == [1, 2, 0]
    assert [j for j, _ in best[1]] == [3, 0, 2]
    assert best[0][0][1] == pytest.approx(1.0)
    assert top_k(ops, com, 10)[0].__len__() == 4  # fewer candidates than k
    assert top_k(ops, com[:0], 5) == [[], []]
