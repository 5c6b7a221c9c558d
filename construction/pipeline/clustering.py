"""Stage 4a: clustering. A reduction of the embeddings (default: a spectral embedding of the
15-neighbour kNN graph, 5 components, then HDBSCAN "eom"; or the published UMAP: 15 neighbours,
5 components, min_dist 0, cosine, fixed seed, then HDBSCAN "leaf"); the min cluster size is
scaled down for small corpora.
Outliers stay unclustered (their share is reported; above `max_outlier_share` the build warns).
Each cluster becomes a Concept `topic_N` whose topic words are its most distinctive noun phrases
(c-TF-IDF) and whose mention terms recognize it in a sentence; facts link to it with their
membership probability, and keep their soft membership in every concept."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel

from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext, StageReport, log
from construction.pipeline.noun_phrases import ctfidf_phrases
from construction.pipeline.stage import Stage
from kg.ids import concept_uid, content_uid, fingerprint

if TYPE_CHECKING:
    from construction.pipeline.config import BuildConfig

STAGE = "clusters"
DOWNSTREAM = ["concepts", "pairs", "relations", "paths", "questions", "evidence"]


class Clustering(BaseModel):
    labels: list[int]  # -1 = outlier
    probs: list[float]  # membership probability in the assigned cluster
    soft: list[list[float]]  # membership in every cluster (rows sum to <= 1)
    min_cluster_size: int
    reduced: bool


def cluster_vectors(vecs: np.ndarray, cfg: BuildConfig, n_facts: int) -> Clustering:
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
    reducer = cfg.reducer_for(n_facts)
    if cfg.use_umap and reducer == "spectral" and n_facts > cfg.spectral_components + 2:
        from sklearn.manifold import SpectralEmbedding

        data = SpectralEmbedding(
            n_components=cfg.spectral_components,
            affinity="nearest_neighbors",
            n_neighbors=min(cfg.umap_neighbors, n_facts - 1),
            random_state=cfg.seed,
        ).fit_transform(vecs)
        reduced = True
    elif cfg.use_umap and n_facts > cfg.umap_components + 2:
        import warnings

        _numba_cache()
        import umap

        enable_numba_caching("umap")

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
        cluster_selection_method=cfg.selection(n_facts),
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


def _numba_cache() -> None:
    """Where numba keeps compiled code on disk: under the product's cache dir unless
    NUMBA_CACHE_DIR says otherwise (see `enable_numba_caching`)."""
    import os

    if "NUMBA_CACHE_DIR" not in os.environ:
        from kg.settings import get_settings

        path = get_settings().cache_dir / "numba"
        path.mkdir(parents=True, exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = str(path)
        import sys

        if "numba" in sys.modules:  # numba reads the variable at import: tell it directly
            sys.modules["numba"].config.CACHE_DIR = str(path)


def enable_numba_caching(package: str) -> int:
    """Turn on numba's on-disk cache for every compiled function of `package`'s loaded modules
    that was declared without `cache=True`; returns how many. UMAP declares almost none of its
    ~110 functions cacheable, so every process compiled them again (most of the clusters
    stage's CPU time; see docs/offline-builder.md). Cached code is the same machine code, so
    results do not change."""
    import sys

    from numba.core.registry import CPUDispatcher

    n = 0
    for name, module in list(sys.modules.items()):
        if module is None or (name != package and not name.startswith(package + ".")):
            continue
        for value in list(vars(module).values()):
            # numba's cache=True does exactly this at decoration time (a NullCache until then).
            cache = getattr(value, "_cache", None)
            if isinstance(value, CPUDispatcher) and type(cache).__name__ == "NullCache":
                value.enable_caching()
                n += 1
    return n


def run(ctx: BuildContext) -> StageReport:
    with ctx.stage(STAGE) as rep:
        cfg = ctx.config
        facts = ctx.store.query("pipeline/fact_vectors", domain=ctx.domain)
        params = (
            cfg.use_umap,
            cfg.reducer,
            cfg.spectral_components,
            cfg.umap_neighbors,
            cfg.umap_components,
            cfg.umap_min_dist,
            cfg.seed,
            cfg.min_cluster_size,
            cfg.min_samples,
            cfg.selection(len(facts)),
            cfg.topic_words,
            cfg.key_evidence,
        )
        input_hash = content_uid(fingerprint([f["uid"] for f in facts]), *params)
        if ctx.resumed_domain(STAGE, rep, input_hash):
            return rep
        if len(facts) < 3:
            rep.note(f"only {len(facts)} embedded facts: nothing to cluster")
            rep.skipped = len(facts)
            return rep
        vecs = np.asarray([f["embedding"] for f in facts], dtype=np.float32)
        result = cluster_vectors(vecs, cfg, len(facts))
        rep.note(
            f"HDBSCAN min cluster size {result.min_cluster_size} for {len(facts)} facts"
            + (
                f" after {cfg.reducer_for(len(facts))} reduction"
                if result.reduced
                else " (no reduction)"
            )
        )
        # Keys of a later build generation continue after the earlier ones' (`--extend`).
        offset = ctx.store.query(
            "pipeline/concept_key_offset", domain=ctx.domain, generation=ctx.generation
        )[0]["offset"]
        # A later generation (`--extend`) reuses the earlier concept a cluster reproduces.
        earlier = (
            ctx.store.query(
                "pipeline/earlier_concepts", domain=ctx.domain, generation=ctx.generation
            )
            if ctx.generation
            else []
        )
        reused = reused_concepts(facts, result.labels, earlier)
        keys = cluster_keys(result.labels, reused, offset)
        rows = [
            r
            for k, r in enumerate(concept_rows(ctx, facts, vecs, result, keys=keys))
            if k not in reused
        ]
        members = membership_rows(facts, vecs, result, cfg.key_evidence, ctx.domain, keys=keys)
        members = keep_earlier_memberships(members, reused)
        if reused:
            rep.note(
                f"{len(reused)} cluster(s) reproduce an earlier generation's concept: "
                f"reused ({', '.join(sorted(c['key'] for c in reused.values()))})"
            )
        rep.counts["reused_concepts"] = len(reused)
        outliers = sum(1 for label in result.labels if label < 0)
        share = outliers / len(result.labels)
        rep.counts.update(
            concepts=len(rows), outliers=outliers, outlier_share_pct=round(100 * share)
        )
        if share > cfg.max_outlier_share:
            rep.counts["warnings"] = rep.counts.get("warnings", 0) + 1
            rep.note(
                f"WARNING: {outliers} of {len(result.labels)} facts ({share:.0%}) are "
                f"outliers, above {cfg.max_outlier_share:.0%}: the concepts cover little "
                f"of the text (try --min-cluster-size smaller or --cluster-selection)"
            )
        elif outliers:
            rep.note(f"{outliers} outlier facts ({share:.0%}) stay unclustered")
        prov = ctx.provenance(
            STAGE, source=f"offline: {cfg.reducer_for(len(facts))} + HDBSCAN + noun-phrase c-TF-IDF"
        )
        here = {"domain": ctx.domain, "generation": ctx.generation}
        # Re-clustering replaces this generation's concepts and everything built on them;
        # earlier generations (`--extend`) stay. One transaction with the done-marker.
        ctx.write_items(
            STAGE,
            [
                ("pipeline/delete_concepts", here),
                ("pipeline/state_clear", {**here, "stages": [STAGE, *DOWNSTREAM]}),
                ("pipeline/write_concepts", {**here, "rows": rows, "provenance": prov}),
                (
                    "pipeline/reuse_concepts",
                    {"uids": [c["uid"] for c in reused.values()], "generation": ctx.generation},
                ),
                (
                    "pipeline/write_memberships",
                    {"rows": members, "provenance": prov, "generation": ctx.generation},
                ),
            ],
            ["domain"],
            input_hash,
        )
        rep.written = len(rows) + len(members)
        return rep


# A cluster reproduces an earlier concept when it holds at least REUSE_CONTAINS of that
# concept's facts and that concept holds at least REUSE_PURITY of the cluster's earlier facts
# (new chunks add facts to a cluster, so a Jaccard share would fall as the domain grows).
REUSE_CONTAINS = 0.4
REUSE_PURITY = 0.5


def reused_concepts(
    facts: list[dict], labels: list[int] | np.ndarray, earlier: list[dict]
) -> dict[int, dict]:
    """cluster -> the earlier concept it reproduces (`--extend`): most of the cluster's
    earlier facts are that concept's, and the cluster holds a good part of them (a cluster
    merging several earlier concepts is a new, coarser concept); each earlier concept is
    reused by one cluster at most, best overlaps first."""
    members: dict[int, set[str]] = {}
    for f, label in zip(facts, labels, strict=True):
        if label >= 0:
            members.setdefault(int(label), set()).add(f["uid"])
    old = {f for c in earlier for f in c["facts"]}
    scored = []
    for k, mine in members.items():
        mine_old = mine & old
        for c in earlier:
            theirs = set(c["facts"])
            both = len(mine & theirs)
            if not both:
                continue
            contains, purity = both / len(theirs), both / len(mine_old)
            if contains >= REUSE_CONTAINS and purity >= REUSE_PURITY:
                scored.append((contains * purity, k, c["key"], c))
    out: dict[int, dict] = {}
    taken: set[str] = set()
    for _, k, key, c in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if k not in out and key not in taken:
            out[k] = c
            taken.add(key)
    return out


def cluster_keys(
    labels: list[int] | np.ndarray, reused: dict[int, dict], offset: int = 0
) -> list[str]:
    """The concept key of each cluster: a reused concept's own, else the next new number."""
    n = int(np.asarray(labels).max()) + 1 if len(labels) else 0
    keys, nxt = [], offset
    for k in range(n):
        if k in reused:
            keys.append(reused[k]["key"])
        else:
            keys.append(f"topic_{nxt}")
            nxt += 1
    return keys


def keep_earlier_memberships(members: list[dict], reused: dict[int, dict]) -> list[dict]:
    """A fact already in a reused concept keeps its membership (prob, key-evidence rank) as the
    earlier generation wrote it: its row only sets its soft memberships."""
    if not reused:
        return members
    already = {(f, c["uid"]) for c in reused.values() for f in c["facts"]}
    return [{**m, "concept": None} if (m["fact"], m["concept"]) in already else m for m in members]


def concept_rows(
    ctx: BuildContext,
    facts: list[dict],
    vecs: np.ndarray,
    result: Clustering,
    offset: int = 0,
    keys: list[str] | None = None,
) -> list[dict]:
    labels = np.asarray(result.labels)
    n = int(labels.max()) + 1 if len(labels) else 0
    docs = [[facts[i]["text"] for i in np.nonzero(labels == k)[0]] for k in range(n)]
    ranked = ctfidf_phrases(docs, max(ctx.config.topic_words, TERMS_PER_CONCEPT)) if n else []
    terms = mention_terms(ranked)
    rows = []
    for k in range(n):
        idx = np.nonzero(labels == k)[0]
        centroid = vecs[idx].mean(axis=0)
        central = idx[int(np.argmax(vecs[idx] @ centroid))]
        key = keys[k] if keys is not None else f"topic_{offset + k}"
        rows.append(
            {
                "uid": content_uid(ctx.domain, key),
                "key": key,
                "topic_words": [p for p, _ in ranked[k][: ctx.config.topic_words]],
                "terms": terms[k],
                "central_fact": facts[central]["uid"],
                "size": int(len(idx)),
            }
        )
    return rows


TERMS_PER_CONCEPT = 4


def mention_terms(ranked: list[list[tuple[str, float]]]) -> list[list[str]]:
    """The phrases by which a concept is recognized in a sentence: its most distinctive
    phrases, each given to the one concept where it scores highest (so a mention is never
    ambiguous between two concepts), at most `TERMS_PER_CONCEPT` per concept."""
    best: dict[str, tuple[float, int]] = {}
    for k, phrases in enumerate(ranked):
        for phrase, score in phrases:
            if phrase not in best or score > best[phrase][0]:
                best[phrase] = (score, k)
    out: list[list[str]] = []
    for k, phrases in enumerate(ranked):
        # A single word recognizes a concept only as its name (added by the relations stage):
        # as a term it matches too much ("rate", "nuclear", "atom").
        mine = [p for p, _ in phrases if best[p][1] == k and " " in p]
        out.append(mine[:TERMS_PER_CONCEPT])
    return out


def membership_rows(
    facts: list[dict],
    vecs: np.ndarray,
    result: Clustering,
    key_evidence: int,
    domain: str,
    offset: int = 0,
    keys: list[str] | None = None,
) -> list[dict]:
    """IN_CONCEPT rows: prob, and rank for the concept's Key Evidence (most central first).
    `keys`: each cluster's concept key (default `topic_{offset + k}`)."""
    labels = np.asarray(result.labels)
    n = int(labels.max()) + 1 if len(labels) else 0
    key = keys if keys is not None else [f"topic_{offset + k}" for k in range(n)]
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
                    "concept": concept_uid(domain, key[k]),
                    "prob": round(float(result.probs[i]), 4),
                    "rank": rank if rank < key_evidence else None,
                    "soft_keys": [key[j] for j, p in enumerate(soft) if p > 0],
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
                    "soft_keys": [key[j] for j, p in enumerate(soft) if p > 0],
                    "soft_probs": [p for p in soft if p > 0],
                }
            )
    return rows


class Clusters(Stage):
    """No model step: the offline implementation serves both routes."""

    name = STAGE
    inputs = ("embeddings",)
    reset = ("pipeline/delete_concepts",)
    domain_level = True

    def offline(self, ctx: BuildContext) -> StageReport:
        return run(ctx)
