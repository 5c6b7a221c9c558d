"""The RAG settings' retrieval functions (evaluation.responders.contexts): exact dense top-k and
BM25 top-k with one retrieve call per k."""

from __future__ import annotations

import bm25s
import numpy as np

from evaluation.responders.contexts import bm25_top, nearest


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_nearest_best_first_and_cut_to_each_query_k() -> None:
    corpus = _unit([[1, 0], [0, 1], [1, 1], [-1, 0]])
    queries = _unit([[1, 0.1], [0, 1]])
    assert nearest(queries, corpus, [3, 1]) == [[0, 2, 1], [1]]


def test_nearest_equal_scores_keep_corpus_order_and_k_is_bounded() -> None:
    corpus = _unit([[0, 1], [1, 0], [1, 0], [1, 0]])
    queries = _unit([[1, 0]])
    assert nearest(queries, corpus, [2]) == [[1, 2]]
    assert nearest(queries, corpus, [10]) == [[1, 2, 3, 0]]  # k above the corpus: all of it
    assert nearest(queries, corpus, [0]) == [[]]


def test_nearest_is_a_full_sort_across_query_batches() -> None:
    rng = np.random.default_rng(0)
    corpus = _unit(rng.normal(size=(300, 8)).tolist())
    queries = _unit(rng.normal(size=(600, 8)).tolist())  # more than one batch of queries
    ks = [int(k) for k in rng.integers(1, 12, size=600)]
    expected = [
        sorted(range(300), key=lambda i, q=q: (-float(corpus[i] @ q), i))[:k]
        for q, k in zip(queries, ks, strict=True)
    ]
    assert nearest(queries, corpus, ks) == expected


CORPUS = [
    "The pump raises water from the reservoir into the channel.",
    "A valve controls the flow of water through the gate.",
    "Pressure sensors report the level of the reservoir.",
    "Soil moisture decides the irrigation schedule of the crop.",
    "The controller opens the gate when the level is high.",
    "Roots take up water from the soil during the season.",
]
QUERIES = [
    "Which part raises water from the reservoir?",
    "What controls the flow through the gate?",
    "How is the reservoir level reported?",
    "When does the crop get water from the soil?",
]


def test_bm25_top_equals_one_retrieve_call_per_query() -> None:
    ks = [2, 3, 2, 10]  # several queries share a k; one k exceeds the corpus
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(CORPUS, stopwords="en", show_progress=False), show_progress=False
    )
    expected = []
    for text, k in zip(QUERIES, ks, strict=True):
        docs, _ = retriever.retrieve(
            bm25s.tokenize([text], stopwords="en", show_progress=False),
            k=min(k, len(CORPUS)),
            show_progress=False,
        )
        expected.append([int(i) for i in docs[0]])
    got = bm25_top(CORPUS, QUERIES, ks)
    assert got == expected
    assert [len(g) for g in got] == [2, 3, 2, len(CORPUS)]
    assert got[0][0] == 0 and got[1][0] == 1  # the sentence that answers it comes first
