"""Stage 7: paths and perspectives. Simple directed paths of 1-3 hops are enumerated in Cypher
and kept by the published group rules (a 1-hop pair needs >= 3 parallel relations; a multi-hop
concept sequence is kept when its relation combinations number 4-14). Perspectives are the
ones `kg perspectives` shows (`kg.queries.perspectives`, one Cypher query): the paths over one
concept sequence that share a relation label at one hop; the selected ones get a Perspective
node (and, in stage 8, a question)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.stage import Stage
from kg.ids import concept_uid, content_uid, fingerprint, path_uid, perspective_uid
from kg.queries.perspectives import candidates, select

if TYPE_CHECKING:
    import neo4j

    from construction.pipeline.llm_route import BuildLLM

STAGE = "paths"
PERSPECTIVE_RULE = "relation-at-hop/v1"


def signature(keys: list[str], labels: list[str]) -> str:
    out = keys[0]
    for label, key in zip(labels, keys[1:], strict=True):
        out += f" -- {label} --> {key}"
    return out


def theme_of(level: str, focus: list[str]) -> str:
    """A readable theme: `causal_and_consequential_relations` -> `Causal/Consequential`."""

    def one(name: str) -> str:
        base = name.removesuffix("_relations")
        if level == "label":
            return base.replace("_", " ").title()
        return "/".join(p.replace("_", " ").title() for p in base.split("_and_"))

    return " -> ".join(dict.fromkeys(one(f) for f in focus)) or "General"


def run(ctx: BuildContext, offline: bool = True) -> StageReport:
    """`offline`: the offline route's group rules (fewer relations per group: its edges
    come only where a fact states them)."""
    with ctx.stage(STAGE) as rep:
        cfg = ctx.config
        edges = ctx.store.query(
            "pipeline/domain_edge_uids", domain=ctx.domain, generation=ctx.generation
        )
        one_min, multi_min, multi_max = cfg.group_rules(offline=offline)
        params = (cfg.max_hops, one_min, multi_min, multi_max)
        # The perspective rule is part of the key: a build made under an older rule regroups.
        input_hash = content_uid(fingerprint([e["uid"] for e in edges]), *params, PERSPECTIVE_RULE)
        if ctx.resumed_domain(STAGE, rep, input_hash):
            return rep
        start = time.perf_counter()
        groups = ctx.store.query(
            "pipeline/enumerate_paths",
            domain=ctx.domain,
            generation=ctx.generation,
            max_hops=cfg.max_hops,
            one_hop_min=one_min,
            multi_min=multi_min,
            multi_max=multi_max,
        )
        rep.counts["enumeration_ms"] = int((time.perf_counter() - start) * 1000)
        prov = ctx.provenance(STAGE, source="Cypher path enumeration + group rules")
        rows = []
        for g in groups:
            keys = g["keys"]
            for p in g["paths"]:
                sig = signature(keys, p["labels"])
                rows.append(
                    {
                        "uid": path_uid(ctx.domain, sig),
                        "domain": ctx.domain,
                        "signature": sig,
                        "hops": g["hops"],
                        "labels": p["labels"],
                        "categories": p["categories"],
                        "concept_keys": keys,
                        "edge_uids": p["edge_uids"],
                        "reasons": p["reasons"],
                        "start_uid": concept_uid(ctx.domain, keys[0]),
                        "end_uid": concept_uid(ctx.domain, keys[-1]),
                        "provenance": prov,
                        "generation": ctx.generation,
                    }
                )
        rep.counts["paths"] = len(rows)
        rep.counts["sequences"] = len(groups)

        def write_paths(tx: neo4j.ManagedTransaction) -> None:
            ctx.store.tx_query(
                tx, "pipeline/delete_paths", domain=ctx.domain, generation=ctx.generation
            )
            ctx.store.tx_query(
                tx,
                "pipeline/state_clear",
                stages=["questions", "evidence"],
                domain=ctx.domain,
                generation=ctx.generation,
            )
            ctx.store.tx_query(tx, "pipeline/write_paths", rows=rows)

        ctx.store.transaction(write_paths)
        found = candidates(ctx.store, ctx.domain, generation=ctx.generation)
        chosen = select(found)
        rep.counts["perspective_candidates"] = len(found)
        by_seq: dict[tuple[str, ...], list[str]] = {}
        for r in rows:
            by_seq.setdefault(tuple(r["concept_keys"]), []).append(r["uid"])
        views = []
        for v in chosen:
            uids = v.path_uids
            cats = sorted({p.categories[v.hop - 1] or p.labels[v.hop - 1] for p in v.paths})
            group = by_seq.get(tuple(v.concept_keys), [])
            views.append(
                {
                    "uid": perspective_uid(
                        ctx.domain, v.concept_keys, v.level, [str(v.hop), v.focus]
                    ),
                    "domain": ctx.domain,
                    "concept_keys": v.concept_keys,
                    "hops": len(v.concept_keys) - 1,
                    "hop": v.hop,
                    "level": v.level,
                    "focus": [v.focus],
                    "categories": cats,
                    "theme": theme_of(v.level, [v.focus]),
                    "targets": sorted(uids),
                    "distractors": [u for u in group if u not in uids],
                    "provenance": prov,
                    "generation": ctx.generation,
                }
            )
        ctx.write_items(
            STAGE, [("pipeline/write_perspectives", {"rows": views})], ["domain"], input_hash
        )
        rep.counts["perspectives"] = len(views)
        rep.written = len(rows) + len(views)
        rep.note(
            f"{len(rows)} paths over {rep.counts['sequences']} concept sequences, "
            f"{len(found)} candidate perspectives, "
            f"{len(views)} selected (enumeration {rep.counts['enumeration_ms']} ms)"
        )
        return rep


class Paths(Stage):
    """The same enumeration on both routes, under each route's group rules."""

    name = STAGE
    inputs = ("relations",)
    reset = ("pipeline/delete_paths",)
    domain_level = True

    def offline(self, ctx: BuildContext) -> StageReport:
        return run(ctx, offline=True)

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        return run(ctx, offline=False)
