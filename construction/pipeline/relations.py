"""Stage 6: relations. For each kept pair, every plausible relation in both directions, grounded
in the two concepts' summaries and key evidence, labeled from the domain's palette, stored as
`RELATES` edges. LLM route: `prompts/pipeline/relations.md` (replies validated: endpoints
must be the pair, no self loops, labels `^[A-Z][A-Z0-9_]*$` and in the palette unless
--allow-new-relations). Offline route (a baseline, not a model's judgement): palette relation
descriptions matched against the pair's evidence by embedding similarity; direction from the
textbook order (the concept introduced first is the source)."""

from __future__ import annotations

import json

import numpy as np
from pydantic import BaseModel, Field

from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import RejectedReply
from kg.errors import InputError
from kg.ids import concept_uid, relates_uid
from kg.palette import LABEL, Palette, PaletteRelation

STAGE = "relations"
NEW_CATEGORY = "new_relations"


class RelationItem(BaseModel):
    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    label: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    description: str | None = None
    category: str | None = None


class RelationsReply(BaseModel):
    relations: list[RelationItem]


def pair_item(p: dict) -> str:
    return f"{p['a_key']}|{p['b_key']}"


def edge_row(
    ctx: BuildContext,
    src: str,
    label: str,
    dst: str,
    category: str | None,
    reason: str,
    provenance: str,
    score: float | None = None,
) -> dict:
    return {
        "uid": relates_uid(ctx.domain, src, label, dst),
        "from_uid": concept_uid(ctx.domain, src),
        "to_uid": concept_uid(ctx.domain, dst),
        "label": label,
        "category": category,
        "reason": reason,
        "domain": ctx.domain,
        "provenance": provenance,
        "score": score,
    }


def offline_choices(
    rel_vecs: np.ndarray, evidence: np.ndarray, max_relations: int, margin: float
) -> list[tuple[int, float]]:
    """(relation index, score): score = mean of the 3 best cosines to the pair's evidence;
    keep the best and every relation within `margin` of it, at most `max_relations`."""
    sims = rel_vecs @ evidence.T
    top = np.sort(sims, axis=1)[:, ::-1][:, :3].mean(axis=1)
    order = np.argsort(-top)
    best = float(top[order[0]])
    return [
        (int(i), round(float(top[i]), 4)) for i in order[:max_relations] if top[i] >= best - margin
    ]


def validate_relation(
    item: RelationItem, a_key: str, b_key: str, palette: Palette, allow_new: bool
) -> tuple[str, str, str, str | None, str]:
    src, dst, label = item.source.strip(), item.target.strip(), item.label.strip()
    if src == dst:
        raise RejectedReply("self_loop", f"{src} -> {dst}")
    if {src, dst} != {a_key, b_key}:
        raise RejectedReply("wrong_endpoints", f"{src} -> {dst} is not the pair {a_key}/{b_key}")
    if not LABEL.match(label):
        raise RejectedReply("bad_label", label)
    if not item.reason.strip():
        raise RejectedReply("missing_field", "reason")
    category = palette.category_of(label)
    if label not in palette.labels() and label not in palette.new_relations:
        if not allow_new:
            raise RejectedReply("unknown_label", label)
        if not (item.description or "").strip():
            raise RejectedReply("missing_field", f"description of new relation {label}")
        category = item.category if item.category in palette.categories else NEW_CATEGORY
        palette.new_relations[label] = PaletteRelation(
            name=label, description=item.description.strip(), category=category
        )
    return src, label, dst, category, " ".join(item.reason.split())


def run(ctx: BuildContext) -> StageReport:
    with ctx.stage(STAGE) as rep:
        if ctx.palette is None:
            raise InputError(f"domain {ctx.domain!r} has no relation palette: pass --palette FILE")
        pairs = ctx.store.query(
            "pipeline/candidate_pairs", domain=ctx.domain, limit=ctx.config.key_evidence
        )
        todo = ctx.pending(STAGE, rep, pairs, item=pair_item)
        if ctx.llm:
            _run_llm(ctx, rep, todo)
        else:
            _run_offline(ctx, rep, todo)
        return rep


def _run_offline(ctx: BuildContext, rep: StageReport, todo: list[dict]) -> None:
    from kg.embeddings import get_embedder

    assert ctx.palette is not None
    rels = ctx.palette.relations()
    rel_vecs = get_embedder(ctx.config.embedding_model).encode([r.text() for r in rels])
    prov = ctx.provenance(
        STAGE,
        source="offline baseline: palette descriptions matched to evidence by embedding similarity",
    )
    bar = ctx.bar("relations", len(todo))
    for p in todo:
        vecs = [v for v in (p["a_vecs"] + p["b_vecs"]) if v is not None]
        if not vecs:
            rep.skipped += 1
            ctx.mark_done(STAGE, [pair_item(p)])
            bar.advance()
            continue
        evidence = np.asarray(vecs, dtype=np.float32)
        forward = (p["a_pos"] or 0) <= (p["b_pos"] or 0)
        src, dst = (p["a_key"], p["b_key"]) if forward else (p["b_key"], p["a_key"])
        s_name, d_name = (p["a_name"], p["b_name"]) if forward else (p["b_name"], p["a_name"])
        rows = []
        for i, score in offline_choices(
            rel_vecs, evidence, ctx.config.offline_max_relations, ctx.config.offline_margin
        ):
            rel = rels[i]
            sims = evidence @ rel_vecs[i]
            na = len([v for v in p["a_vecs"] if v is not None])
            fa = p["a_facts"][int(np.argmax(sims[:na]))] if na else ""
            fb = p["b_facts"][int(np.argmax(sims[na:]))] if len(sims) > na else ""
            first, second = (fa, fb) if forward else (fb, fa)
            reason = (
                f"{s_name} {rel.name.replace('_', ' ').lower()} {d_name} (offline "
                f"match {score:.2f}): {first} {second}"
            ).strip()
            rows.append(edge_row(ctx, src, rel.name, dst, rel.category, reason, prov, score))
        ctx.write_items(STAGE, [("pipeline/write_relations", {"rows": rows})], [pair_item(p)])
        rep.written += len(rows)
        bar.advance()
    bar.close()


def _run_llm(ctx: BuildContext, rep: StageReport, todo: list[dict]) -> None:
    assert ctx.llm is not None and ctx.palette is not None
    llm, palette = ctx.llm, ctx.palette
    prov = ctx.provenance(STAGE, prompt_hash=llm.prompt_hash("relations"))
    bar = ctx.bar("relations", len(todo))

    def block(key: str, name: str, summary: str, facts: list[str]) -> str:
        lines = "\n".join(f"  - {f}" for f in facts)
        return f"{key} ({name}): {summary}\n  Key evidence:\n{lines}"

    async def one(p: dict) -> None:
        try:
            reply = await llm.ask(
                "relations",
                RelationsReply,
                palette=palette.describe(),
                a_key=p["a_key"],
                b_key=p["b_key"],
                concept_a=block(p["a_key"], p["a_name"], p["a_summary"], p["a_facts"]),
                concept_b=block(p["b_key"], p["b_name"], p["b_summary"], p["b_facts"]),
                new_relations="allowed (give a description and a category)"
                if ctx.config.allow_new_relations
                else "not allowed",
            )
        except RejectedReply as exc:
            rep.reject(exc.reason)
            bar.advance()
            return
        rows, seen = [], set()
        for item in reply.relations:
            try:
                src, label, dst, cat, reason = validate_relation(
                    item, p["a_key"], p["b_key"], palette, ctx.config.allow_new_relations
                )
            except RejectedReply as exc:
                rep.reject(exc.reason)
                continue
            if (src, label, dst) in seen:
                continue
            seen.add((src, label, dst))
            rows.append(edge_row(ctx, src, label, dst, cat, reason, prov))
        ctx.write_items(STAGE, [("pipeline/write_relations", {"rows": rows})], [pair_item(p)])
        rep.written += len(rows)
        bar.advance()

    llm.map(todo, one, ctx.config.concurrency)
    bar.close()
    if palette.new_relations:
        body = {k: v.model_dump() for k, v in palette.new_relations.items()}
        ctx.store.query(
            "pipeline/domain_add_new_relations",
            domain=ctx.domain,
            new_relations=json.dumps(body, ensure_ascii=False, sort_keys=True),
        )
        rep.note(f"{len(body)} new relation labels recorded with their descriptions")
