"""Stage 4a: clustering. Optional UMAP reduction (15 neighbours, 5 components, min_dist 0,
cosine, fixed seed) then HDBSCAN; min cluster size scaled down for small corpora. Outliers stay
unclustered. Each cluster becomes a Concept `topic_N` with c-TF-IDF topic words; facts link to it
with their membership probability, and keep their soft membership in every concept."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from construction.pipeline.context import BuildContext, StageReport, log
from kg.ids import concept_uid, content_uid, fingerprint

STAGE = "clusters"
DOWNSTREAM = ["concepts", "pairs", "relations", "paths", "questions", "evidence"]


class Clustering(BaseModel):
    labels: list[int]  # -1 = outlier
    probs: list[float]  # membership probability in the assigned cluster
    soft: list[list[float]]  # membership in every cluster (rows sum to <= 1)
    min_cluster_size: int
    reduced: bool


def cluster_vectors(vecs: np.ndarray, cfg, n_facts: int) -> Clustering:
    import hdbscan

    size = cfg.scaled_min_cluster_size(n_facts)
    if size != cfg.min_cluster_size:
        log.info(
            "clusters: %d facts: HDBSCAN min cluster size scaled from %d to %d",
            n_facts,
            cfg.min_cluster_size,
            size,
        )
    data = vecs
    reduced = False
    if cfg.use_umap and n_facts > cfg.umap_components + 2:
        import warnings

        import umap

        warnings.filterwarnings("ignore", message="n_jobs value", category=UserWarning)
        reducer = umap.UMAP(
            n_neighbors=min(cfg.umap_neighbors, n_facts - 1),
            n_components=cfg.umap_components,
            min_dist=cfg.umap_min_dist,
            metric="cosine",
            random_state=cfg.seed,
        )
        data = reducer.fit_transform(vecs)
        reduced = True
    clusterer = hdbscan.HDBSCAN(
        min_cluster_size=size,
        min_samples=cfg.min_samples,
        metric="euclidean",
        cluster_selection_method=cfg.cluster_selection,
        prediction_data=True,
    )
    labels = clusterer.fit_predict(data)
    n_clusters = int(labels.max()) + 1 if len(labels) else 0
    if n_clusters:
        soft = hdbscan.all_points_membership_vectors(clusterer)
        soft = np.asarray(soft, dtype=float).reshape(len(labels), n_clusters)
    else:
        soft = np.zeros((len(labels), 0))
    return Clustering(
        labels=labels.tolist(),
        probs=clusterer.probabilities_.tolist(),
        soft=soft.round(4).tolist(),
        min_cluster_size=size,
        reduced=reduced,
    )


def ctfidf_topic_words(docs: list[str], n_words: int) -> list[list[str]]:
    """Class-based TF-IDF (one document = all facts of a cluster), 1-2-grams, no stop words."""
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(
        ngram_range=(1, 2), stop_words="english", token_pattern=r"(?u)\b[A-Za-z][A-Za-z\-]+\b"
    )
    counts = vec.fit_transform(docs).toarray().astype(float)
    words = vec.get_feature_names_out()
    tf = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    avg_words = counts.sum() / max(len(docs), 1)
    idf = np.log(1.0 + avg_words / np.maximum(counts.sum(axis=0), 1.0))
    scores = tf * idf
    return [[str(words[j]) for j in np.argsort(-row)[:n_words] if row[j] > 0] for row in scores]


def run(ctx: BuildContext) -> StageReport:
    with ctx.stage(STAGE) as rep:
        cfg = ctx.config
        facts = ctx.store.query("pipeline/fact_vectors", domain=ctx.domain)
        rep.items = 1
        params = (
            cfg.use_umap,
            cfg.umap_neighbors,
            cfg.umap_components,
            cfg.umap_min_dist,
            cfg.seed,
            cfg.min_cluster_size,
            cfg.min_samples,
            cfg.cluster_selection,
            cfg.topic_words,
            cfg.key_evidence,
        )
        input_hash = content_uid(fingerprint([f["uid"] for f in facts]), *params)
        if ctx.done_items(STAGE).get("domain") == input_hash:
            rep.resumed = 1
            return rep
        if len(facts) < 3:
            rep.note(f"only {len(facts)} embedded facts: nothing to cluster")
            rep.skipped = len(facts)
            return rep
        vecs = np.asarray([f["embedding"] for f in facts], dtype=np.float32)
        result = cluster_vectors(vecs, cfg, len(facts))
        rep.note(
            f"HDBSCAN min cluster size {result.min_cluster_size} for {len(facts)} facts"
            + (" after UMAP" if result.reduced else " (no UMAP)")
        )
        rows = concept_rows(ctx, facts, vecs, result)
        members = membership_rows(facts, vecs, result, cfg.key_evidence, ctx.domain)
        outliers = sum(1 for label in result.labels if label < 0)
        rep.counts.update(concepts=len(rows), outliers=outliers)
        if outliers:
            rep.note(f"{outliers} outlier facts stay unclustered")
        prov = ctx.provenance(STAGE, source="offline: UMAP + HDBSCAN + c-TF-IDF")
        steps = [ctx.step_row(STAGE, "domain", input_hash)]

        def work(tx) -> None:
            # Re-clustering replaces the domain's concepts and everything built on them.
            ctx.store.tx_query(tx, "pipeline/delete_concepts", domain=ctx.domain)
            ctx.store.tx_query(
                tx, "pipeline/state_clear", domain=ctx.domain, stages=[STAGE, *DOWNSTREAM]
            )
            ctx.store.tx_query(
                tx, "pipeline/write_concepts", rows=rows, provenance=prov, domain=ctx.domain
            )
            ctx.store.tx_query(tx, "pipeline/write_memberships", rows=members, provenance=prov)
            ctx.store.tx_query(tx, "pipeline/state_mark_done", rows=steps)

        ctx.store.transaction(work)
        rep.written = len(rows) + len(members)
        return rep


def concept_rows(
    ctx: BuildContext, facts: list[dict], vecs: np.ndarray, result: Clustering
) -> list[dict]:
    labels = np.asarray(result.labels)
    n = int(labels.max()) + 1 if len(labels) else 0
    docs = [" ".join(facts[i]["text"] for i in np.nonzero(labels == k)[0]) for k in range(n)]
    words = ctfidf_topic_words(docs, ctx.config.topic_words) if n else []
    rows = []
    for k in range(n):
        idx = np.nonzero(labels == k)[0]
        centroid = vecs[idx].mean(axis=0)
        central = idx[int(np.argmax(vecs[idx] @ centroid))]
        key = f"topic_{k}"
        rows.append(
            {
                "uid": concept_uid(ctx.domain, key),
                "key": key,
                "topic_words": words[k],
                "central_fact": facts[central]["uid"],
                "size": int(len(idx)),
            }
        )
    return rows


def membership_rows(
    facts: list[dict], vecs: np.ndarray, result: Clustering, key_evidence: int, domain: str
) -> list[dict]:
    """IN_CONCEPT rows: prob, and rank for the concept's Key Evidence (most central first)."""
    labels = np.asarray(result.labels)
    rows = []
    for k in range(int(labels.max()) + 1 if len(labels) else 0):
        idx = np.nonzero(labels == k)[0]
        centroid = vecs[idx].mean(axis=0)
        order = idx[np.lexsort((-(vecs[idx] @ centroid), -np.asarray(result.probs)[idx]))]
        for rank, i in enumerate(order.tolist()):
            soft = result.soft[i]
            rows.append(
                {
                    "fact": facts[i]["uid"],
                    "concept": concept_uid(domain, f"topic_{k}"),
                    "prob": round(float(result.probs[i]), 4),
                    "rank": rank if rank < key_evidence else None,
                    "soft_keys": [f"topic_{j}" for j, p in enumerate(soft) if p > 0],
                    "soft_probs": [p for p in soft if p > 0],
                }
            )
    for i, label in enumerate(result.labels):
        if label < 0 and result.soft[i]:
            soft = result.soft[i]
            rows.append(
                {
                    "fact": facts[i]["uid"],
                    "concept": None,
                    "prob": 0.0,
                    "rank": None,
                    "soft_keys": [f"topic_{j}" for j, p in enumerate(soft) if p > 0],
                    "soft_probs": [p for p in soft if p > 0],
                }
            )
    return rows
