"""An imported domain's concepts and edges written as a built domain, then the build's stage 7
(paths and perspectives) run on it: stage 7 on the published graph, without the slow stages
before it. Used by the stage-7 tests and the server-without-GDS test."""

from __future__ import annotations

from construction.pipeline import paths as stage7
from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext
from kg import ids
from kg.store import Store


def stage7_on_copy(store: Store, source: str, built: str) -> dict[str, int]:
    """Copy `source` as the built domain `built`, run stage 7, return its counts."""
    edges = store.query("bench/all_edges", domain=source)
    keys = sorted({k for e in edges for k in (e["source"], e["target"])})
    store.query(
        "pipeline/write_concepts",
        domain=built,
        provenance="test",
        generation=0,
        rows=[
            {
                "uid": ids.concept_uid(built, k),
                "key": k,
                "topic_words": [],
                "terms": [],
                "central_fact": None,
                "size": 1,
            }
            for k in keys
        ],
    )
    store.query(
        "pipeline/write_relations",
        rows=[
            {
                "uid": ids.content_uid(built, "edge", e["uid"]),
                "from_uid": ids.concept_uid(built, e["source"]),
                "to_uid": ids.concept_uid(built, e["target"]),
                "label": e["label"],
                "category": None,
                "reason": f"edge {i}",
                "domain": built,
                "provenance": "test",
                "score": 1.0,
                "evidence": [],
            }
            for i, e in enumerate(edges)
        ],
        generation=0,
    )
    ctx = BuildContext(
        store=store, config=BuildConfig(domain=built), palette=None, run_uid="stage7-test"
    )
    return dict(stage7.run(ctx).counts)


def stage7_views(store: Store, built: str) -> set[tuple]:
    """The Perspective nodes stage 7 wrote: (concept sequence, hop, focus, target signatures)."""
    rows = store.run_text(
        """MATCH (v:Perspective {domain: $d})-[:TARGET]->(p:Path)
           WITH v, p ORDER BY p.signature
           RETURN v.concept_keys AS seq, v.hop AS hop, v.focus AS focus,
                  collect(p.signature) AS targets,
                  COUNT { (v)-[:DISTRACTOR]->() } AS distractors""",
        d=built,
    )
    return {(tuple(r["seq"]), r["hop"], r["focus"][0], tuple(r["targets"])) for r in rows}
