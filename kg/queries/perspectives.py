"""Perspective grouping between two concepts: Cypher groups the paths by relation category, then a
GDS step merges near-identical groups (Jaccard node similarity over the labels and categories
each group uses, then weakly connected components over the similar pairs).

The in-memory graph gets a unique name per call and is dropped afterwards, also on failure.
"""

from __future__ import annotations

import uuid
from typing import Any

from kg import ids
from kg.palette import stored_palette
from kg.queries.models import GraphPath, Perspective, QuestionRef
from kg.queries.paths import MAX_HOPS, check_hops
from kg.store import Store

DEFAULT_MERGE_CUTOFF = 0.75


def domain_palette(store: Store, domain: str) -> dict[str, str]:
    """The palette `kg build` stored on the domain, as label -> category (empty if none)."""
    palette = stored_palette(store, domain)
    return palette.category_map() if palette else {}


def _features(key: list[str], paths: list[dict[str, Any]]) -> set[str]:
    feats = {f"focus:{k}" for k in key}
    for p in paths:
        feats.update(f"label:{label}" for label in p["labels"])
        feats.update(f"category:{c}" for c in p["categories"] if c)
    return feats


def merge_groups(store: Store, features: list[set[str]], cutoff: float) -> list[int]:
    """Component id per candidate group: GDS nodeSimilarity (Jaccard >= cutoff) + WCC."""
    n = len(features)
    if n < 2:
        return list(range(n))
    vocab = {f: n + i for i, f in enumerate(sorted(set().union(*features)))}
    pairs = [[g, vocab[f]] for g, feats in enumerate(features) for f in sorted(feats)]
    graph = f"bench_perspectives_{uuid.uuid4().hex}"
    try:
        store.query("bench/perspective_project", graph=graph, pairs=pairs, offset=n)
        store.query("bench/perspective_similarity", graph=graph, cutoff=cutoff)
        rows = store.query("bench/perspective_components", graph=graph)
    finally:
        store.query("bench/gds_drop_graph", graph=graph)
    component = {r["group"]: r["component"] for r in rows}
    return [component.get(g, -1 - g) for g in range(n)]


def group_perspectives(
    store: Store,
    domain: str,
    start_key: str,
    end_key: str,
    palette: dict[str, str] | None = None,
    *,
    max_hops: int = MAX_HOPS,
    merge_cutoff: float = DEFAULT_MERGE_CUTOFF,
) -> list[Perspective]:
    """Group every simple path from `start_key` to `end_key` (concept keys in `domain`) into
    perspectives, largest first.

    Each hop counts as its relation category: `palette` (label -> category) first, then the
    palette `kg build` stored on the domain, then the edge's stored `category`; where none is
    known, its label. Cypher groups paths by that focus sequence; GDS merges groups whose
    label/category sets have Jaccard similarity >= `merge_cutoff`. Each perspective lists the
    imported questions whose target paths fall in it.
    """
    effective = {**domain_palette(store, domain), **(palette or {})}
    start, end = ids.concept_uid(domain, start_key), ids.concept_uid(domain, end_key)
    rows = store.read(
        "bench/perspective_groups",
        start=start,
        end=end,
        max_hops=check_hops(max_hops),
        palette=effective,
    )
    feats = [_features(r["group_key"], r["paths"]) for r in rows]
    components = merge_groups(store, feats, merge_cutoff)
    merged: dict[int, Perspective] = {}
    for row, comp, f in zip(rows, components, feats, strict=True):
        paths = [GraphPath(**p) for p in row["paths"]]
        if comp not in merged:  # rows come largest first: the first group names the perspective
            merged[comp] = Perspective(
                name=" > ".join(row["group_key"]), keys=[], features=[], paths=[]
            )
        p = merged[comp]
        p.keys.append(row["group_key"])
        p.features = sorted(set(p.features) | f)
        p.paths.extend(paths)
    perspectives = sorted(merged.values(), key=lambda p: (-len(p.paths), p.name))
    _attach_questions(store, start, end, perspectives)
    return perspectives


def _attach_questions(store: Store, start: str, end: str, perspectives: list[Perspective]) -> None:
    where = {sig: p for p in perspectives for sig in p.signatures}
    for row in store.read("bench/pair_questions", start=start, end=end):
        ref = QuestionRef(**row)
        for persp in {id(where[s]): where[s] for s in ref.targets if s in where}.values():
            persp.questions.append(ref)
