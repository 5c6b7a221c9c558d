"""What the responder sees (per setting) and what the faithfulness judge checks against.

Base: nothing. Oracle: the question's focused evidence. Noisy: the evidence plus `noise` facts
sampled (seeded) from the question's own graph that are not evidence, shuffled in. RAG-BM25 /
RAG-dense: the top-k facts of the question's domain for the question text (BM25 via `bm25s`;
dense: exact cosine top-k over the embedding model's vectors of the domain's facts, which are
also stored on the facts for the vector index `fact_embedding`). By default RAG's k is
Noisy's document count (evidence + noise), as in the paper.
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np

from evaluation.models import EvalQuestion, Fact, GroundTruth, Setting
from kg.errors import InputError
from kg.store import Store

_QUERY_BATCH = 256  # questions per matrix product (bounds its memory)


class ContextOptions:
    def __init__(
        self,
        setting: Setting,
        *,
        noise: int = 5,
        top_k: int | None = None,
        seed: int = 0,
        store_embeddings: bool = True,
    ) -> None:
        if noise < 0:
            raise InputError("--noise must be >= 0")
        if top_k is not None and top_k < 1:
            raise InputError("--top-k must be >= 1")
        self.setting, self.noise, self.top_k, self.seed = setting, noise, top_k, seed
        # RAG-dense stores the facts' vectors it computes (for the vector index); a cost plan,
        # which writes nothing, computes the same contexts without storing them.
        self.store_embeddings = store_embeddings

    def as_dict(self) -> dict[str, object]:
        return {
            "setting": self.setting.value,
            "noise": self.noise,
            "top_k": self.top_k,
            "seed": self.seed,
        }


def question_facts(store: Store, questions: list[EvalQuestion]) -> dict[str, list[Fact]]:
    rows = store.query("eval/question_facts", uids=[q.uid for q in questions])
    return {r["uid"]: [Fact(**f) for f in r["facts"]] for r in rows}


def domain_facts(store: Store, domain: str) -> list[Fact]:
    """Every fact of `domain`, ordered by uid (the RAG corpus)."""
    cols = store.query("eval/domain_facts", domain=domain)[0]
    return [Fact(uid=u, text=t) for u, t in zip(cols["uids"], cols["texts"], strict=True)]


def ground_truth(
    store: Store, questions: list[EvalQuestion], gt: GroundTruth
) -> dict[str, list[Fact]]:
    if gt is GroundTruth.evidence:
        return {q.uid: list(q.evidence) for q in questions}
    full = question_facts(store, questions)
    out = {}
    for q in questions:  # evidence first, then the rest of the question's graph
        seen = {f.uid for f in q.evidence}
        out[q.uid] = [*q.evidence, *[f for f in full.get(q.uid, []) if f.uid not in seen]]
    return out


def _k(opts: ContextOptions, q: EvalQuestion) -> int:
    return opts.top_k if opts.top_k is not None else len(q.evidence) + opts.noise


def build_contexts(
    store: Store, questions: list[EvalQuestion], opts: ContextOptions
) -> dict[str, list[Fact]]:
    s = opts.setting
    if s is Setting.base:
        return {q.uid: [] for q in questions}
    if s is Setting.oracle:
        return {q.uid: list(q.evidence) for q in questions}
    if s is Setting.noisy:
        pool = question_facts(store, questions)
        out = {}
        for q in questions:
            rng = random.Random(f"{opts.seed}:noisy:{q.uid}")
            evidence = {f.uid for f in q.evidence}
            candidates = [f for f in pool.get(q.uid, []) if f.uid not in evidence]
            docs = list(q.evidence) + rng.sample(candidates, min(opts.noise, len(candidates)))
            rng.shuffle(docs)
            out[q.uid] = docs
        return out
    by_domain: dict[str, list[EvalQuestion]] = defaultdict(list)
    for q in questions:
        by_domain[q.domain].append(q)
    out = {}
    for domain, qs in by_domain.items():
        if s is Setting.rag_bm25:
            out.update(_bm25(store, domain, qs, opts))
        else:
            out.update(_dense(store, domain, qs, opts))
    return out


def bm25_top(corpus: list[str], queries: list[str], ks: list[int]) -> list[list[int]]:
    """Positions in `corpus` of each query's `ks[i]` best BM25 matches (`bm25s`, English
    stopwords), best first. The index is built once and each distinct k is one retrieve call
    over its queries (a call per query was most of a 1,024-question plan's retrieval)."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
    )
    by_k: dict[int, list[int]] = defaultdict(list)
    for pos, k in enumerate(ks):
        by_k[min(k, len(corpus))].append(pos)
    out: dict[int, list[int]] = {}
    for k, group in by_k.items():
        docs, _ = retriever.retrieve(
            bm25s.tokenize([queries[i] for i in group], stopwords="en", show_progress=False),
            k=k,
            show_progress=False,
        )
        out.update({pos: [int(i) for i in row] for pos, row in zip(group, docs, strict=True)})
    return [out[pos] for pos in range(len(queries))]


def _bm25(
    store: Store, domain: str, qs: list[EvalQuestion], opts: ContextOptions
) -> dict[str, list[Fact]]:
    corpus = domain_facts(store, domain)
    if not corpus:
        return {q.uid: [] for q in qs}
    hits = bm25_top([f.text for f in corpus], [q.text for q in qs], [_k(opts, q) for q in qs])
    return {q.uid: [corpus[i] for i in found] for q, found in zip(qs, hits, strict=True)}


def ensure_fact_embeddings(store: Store, domain: str) -> int:
    """Embed and store the domain's facts that have no (current-model) embedding; returns count."""
    from kg.embeddings import get_embedder

    emb = get_embedder()
    todo = store.query("eval/facts_missing_embedding", domain=domain, model=emb.model_name)
    if not todo:
        return 0
    vecs = emb.encode([r["text"] for r in todo])
    rows = [{"uid": r["uid"], "embedding": v.tolist()} for r, v in zip(todo, vecs, strict=True)]
    store.write_batches("eval/set_fact_embeddings", rows, batch_size=500, model=emb.model_name)
    store.query("core/await_indexes")
    return len(rows)


def nearest(queries: np.ndarray, corpus: np.ndarray, ks: list[int]) -> list[list[int]]:
    """Row positions in `corpus` of each query's `ks[i]` most similar rows, best first (dot
    product: cosine for normalized vectors; equal scores in corpus order). Exact, and one
    matrix product per batch of queries."""
    out: list[list[int]] = []
    for start in range(0, len(queries), _QUERY_BATCH):
        scores = queries[start : start + _QUERY_BATCH] @ corpus.T
        for row, k in zip(scores, ks[start : start + _QUERY_BATCH], strict=True):
            k = max(0, min(k, len(row)))
            top = np.argpartition(-row, k - 1)[:k] if 0 < k < len(row) else np.arange(k)
            out.append(top[np.lexsort((top, -row[top]))].tolist())
    return out


def _dense(
    store: Store, domain: str, qs: list[EvalQuestion], opts: ContextOptions
) -> dict[str, list[Fact]]:
    from kg.embeddings import get_embedder

    if opts.store_embeddings:
        ensure_fact_embeddings(store, domain)
    corpus = domain_facts(store, domain)
    if not corpus:
        return {q.uid: [] for q in qs}
    # The facts' vectors come through the embedder's disk cache (where storing them put them),
    # not over Bolt, and the search is one exact matrix product: a vector-index query per
    # question made the plan of 1,024 questions take 20 s.
    emb = get_embedder()
    hits = nearest(
        emb.encode([q.text for q in qs]),
        emb.encode([f.text for f in corpus]),
        [_k(opts, q) for q in qs],
    )
    return {q.uid: [corpus[i] for i in found] for q, found in zip(qs, hits, strict=True)}
