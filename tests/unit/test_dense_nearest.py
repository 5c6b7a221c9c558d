"""The exact top-k search of the RAG-dense setting (evaluation.responders.contexts.nearest)."""

from __future__ import annotations

import numpy as np

from evaluation.responders.contexts import nearest


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_best_first_and_cut_to_each_query_k() -> None:
    corpus = _unit([[1, 0], [0, 1], [1, 1], [-1, 0]])
    queries = _unit([[1, 0.1], [0, 1]])
    assert nearest(queries, corpus, [3, 1]) == [[0, 2, 1], [1]]


def test_equal_scores_keep_corpus_order_and_k_is_bounded() -> None:
    corpus = _unit([[0, 1], [1, 0], [1, 0], [1, 0]])
    queries = _unit([[1, 0]])
    assert nearest(queries, corpus, [2]) == [[1, 2]]
    assert nearest(queries, corpus, [10]) == [[1, 2, 3, 0]]  # k above the corpus: all of it
    assert nearest(queries, corpus, [0]) == [[]]


def test_same_result_as_a_full_sort_across_query_batches() -> None:
    rng = np.random.default_rng(0)
    corpus = _unit(rng.normal(size=(300, 8)).tolist())
    queries = _unit(rng.normal(size=(600, 8)).tolist())  # more than one batch of queries
    ks = [int(k) for k in rng.integers(1, 12, size=600)]
    expected = [
        sorted(range(300), key=lambda i, q=q: (-float(corpus[i] @ q), i))[:k]
        for q, k in zip(queries, ks, strict=True)
    ]
    assert nearest(queries, corpus, ks) == expected
