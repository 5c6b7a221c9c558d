"""Offline baselines (no LLM), named as baselines in every report.

- T1 `baseline:agglomerative`: number of clusters of the item's expansion embeddings under
  average-linkage agglomerative clustering (cosine distance); the distance threshold is tuned on
  a seeded dev split of freshly built T1 items, never on the test items.
- T2 `baseline:most-similar`: the option whose opinion text is most similar to the expansion.
- T3 `baseline:centroid`: the side (pro/con) whose centroid of the topic's opinion embeddings is
  more similar to the (mean) expansion embedding.

Predictions are returned as replies in the prompts' answer shape so they go through the same
strict parsers and metrics as model replies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.cluster.hierarchy import linkage

from evaluation.perspectra.metrics import nie
from kg.queries.perspectra_corpus import Corpus
from kg.task_items import LETTERS, TaskItem, TaskSetSpec

Encoder = Callable[[list[str]], np.ndarray]
BASELINE_NAMES = {
    "t1": "baseline:agglomerative",
    "t2": "baseline:most-similar",
    "t3": "baseline:centroid",
}
THRESHOLD_GRID = tuple(round(float(x), 3) for x in np.arange(0.05, 1.2, 0.025))


class Embeddings:
    """Encodes each distinct text once and hands out rows by text."""

    def __init__(self, encode: Encoder, texts: Sequence[str]) -> None:
        distinct = list(dict.fromkeys(texts))
        vecs = np.asarray(encode(distinct), dtype=np.float32) if distinct else np.zeros((0, 1))
        self._row = {t: i for i, t in enumerate(distinct)}
        self._vecs = vecs

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self._vecs[[self._row[t] for t in texts]]


def merge_heights(vectors: np.ndarray) -> np.ndarray:
    """Average-linkage cosine merge distances (ascending for average linkage)."""
    if len(vectors) < 2:
        return np.zeros(0)
    return linkage(vectors, method="average", metric="cosine")[:, 2]


def clusters_at(heights: np.ndarray, threshold: float) -> int:
    """Clusters left when every merge closer than `threshold` is made."""
    return int(len(heights) + 1 - np.count_nonzero(heights < threshold))


def tune_threshold(heights: Sequence[np.ndarray], golds: Sequence[int]) -> tuple[float, float]:
    """(threshold, dev accuracy): best accuracy, then best NIE, then the smallest threshold."""
    best: tuple[float, float, float] | None = None
    for t in THRESHOLD_GRID:
        preds = [clusters_at(h, t) for h in heights]
        acc = float(np.mean([p == g for p, g in zip(preds, golds, strict=True)]))
        score = float(np.mean([nie(p, g) for p, g in zip(preds, golds, strict=True)]))
        if best is None or (acc, score) > (best[1], best[2]):
            best = (t, acc, score)
    assert best is not None
    return best[0], best[1]


@dataclass
class BaselineResult:
    name: str
    replies: list[str]
    config: dict[str, object]


def _texts_by_uid(corpus: Corpus) -> dict[str, str]:
    return {e.uid: e.text for _, _, e in corpus.expansions()}


# Builds a task set from the corpus (construction's `build_items`): the T1 baseline tunes its
# threshold on a dev set drawn like the test items; passed in so evaluation builds nothing.
ItemMaker = Callable[[Corpus, TaskSetSpec], list[TaskItem]]


def t1_baseline(
    items: list[TaskItem],
    corpus: Corpus,
    encode: Encoder,
    *,
    make_items: ItemMaker,
    dev_n: int = 300,
    dev_seed: int | None = None,
) -> BaselineResult:
    test = items[0] if items else None
    dev_seed = dev_seed if dev_seed is not None else (test.seed if test else 0) + 1000
    spec = TaskSetSpec(task="t1", n=dev_n, seed=dev_seed)
    test_keys = {frozenset(i.expansion_uids) for i in items}
    dev = [d for d in make_items(corpus, spec) if frozenset(d.expansion_uids) not in test_keys]
    text_of = _texts_by_uid(corpus)
    emb = Embeddings(encode, [text_of[u] for i in [*dev, *items] for u in i.expansion_uids])
    heights = {
        i.uid: merge_heights(emb([text_of[u] for u in i.expansion_uids])) for i in [*dev, *items]
    }
    threshold, dev_acc = tune_threshold([heights[d.uid] for d in dev], [int(d.gold) for d in dev])
    replies = [str(clusters_at(heights[i.uid], threshold)) for i in items]
    return BaselineResult(
        BASELINE_NAMES["t1"],
        replies,
        {
            "threshold": threshold,
            "dev_seed": dev_seed,
            "dev_items": len(dev),
            "dev_accuracy": dev_acc,
            "linkage": "average",
            "metric": "cosine",
        },
    )


def t2_baseline(items: list[TaskItem], encode: Encoder) -> BaselineResult:
    emb = Embeddings(encode, [t for i in items for t in (i.text, *i.options)])
    replies = []
    for i in items:
        sims = emb(i.options) @ emb([i.text])[0]
        replies.append(LETTERS[int(np.argmax(sims))])
    return BaselineResult(BASELINE_NAMES["t2"], replies, {"similarity": "cosine"})


def t3_baseline(items: list[TaskItem], corpus: Corpus, encode: Encoder) -> BaselineResult:
    topics = {t.uid: t for t in corpus.topics}
    text_of = _texts_by_uid(corpus)
    needed = [o.text for i in items for o in topics[i.topic_uid].opinions]
    needed += [text_of[u] for i in items for u in i.expansion_uids]
    emb = Embeddings(encode, needed)

    def centroid(texts: list[str]) -> np.ndarray:
        c = emb(texts).mean(axis=0)
        return c / (np.linalg.norm(c) or 1.0)

    replies = []
    for i in items:
        topic = topics[i.topic_uid]
        x = centroid([text_of[u] for u in i.expansion_uids])
        pro = centroid([o.text for o in topic.side("pro")]) if topic.side("pro") else None
        con = centroid([o.text for o in topic.side("con")]) if topic.side("con") else None
        s_pro = float(x @ pro) if pro is not None else -2.0
        s_con = float(x @ con) if con is not None else -2.0
        replies.append("pro" if s_pro >= s_con else "con")
    return BaselineResult(
        BASELINE_NAMES["t3"], replies, {"similarity": "cosine", "centroids": "topic opinions"}
    )
