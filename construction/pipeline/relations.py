"""Stage 6: relations. For each kept pair, every plausible relation in both directions, grounded
in the two concepts' summaries and key evidence, labeled from the domain's palette, stored as
`RELATES` edges. LLM route: `prompts/pipeline/relations.md` (replies validated: endpoints must
be the pair, no self loops, labels `^[A-Z][A-Z0-9_]*$` and in the palette unless
--allow-new-relations). Offline route (`relation_evidence.py`): an edge only where a fact (or two
adjacent facts of one chunk) mentions both concepts; label from the palette cue words in that
evidence (minimum score); direction from the sentence; reason = the evidence verbatim. No
evidence, no edge."""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, Field

from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import BuildLLM, RejectedReply
from construction.pipeline.noun_phrases import norm, terms_of_name
from construction.pipeline.relation_evidence import (
    CONNECTIVE,
    WORD,
    LabelCues,
    Mention,
    find_mentions,
    first_mentions,
    label_cues,
    match_labels,
    term_pattern,
)
from construction.pipeline.stage import Stage
from construction.pipeline.syntax import MATCHER, parse_all
from kg.errors import InputError
from kg.ids import concept_uid, content_uid, fingerprint, relates_uid
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


def validate_relation(
    item: RelationItem,
    a_key: str,
    b_key: str,
    palette: Palette,
    allow_new: bool,
    evidence: list[str] | None = None,
) -> tuple[str, str, str, str | None, str]:
    """(source, label, target, category, reason) of a model's relation, or RejectedReply.
    With `evidence` (the pair's key-evidence facts), the reason must quote one verbatim."""
    src, dst, label = item.source.strip(), item.target.strip(), item.label.strip()
    if src == dst:
        raise RejectedReply("self_loop", f"{src} -> {dst}")
    if {src, dst} != {a_key, b_key}:
        raise RejectedReply("wrong_endpoints", f"{src} -> {dst} is not the pair {a_key}/{b_key}")
    if not LABEL.match(label):
        raise RejectedReply("bad_label", label)
    if not item.reason.strip():
        raise RejectedReply("missing_field", "reason")
    if evidence is not None and not any(norm(f) in norm(item.reason) for f in evidence if f):
        raise RejectedReply("ungrounded_reason", item.reason[:120])
    category = palette.category_of(label)
    if label not in palette.labels() and label not in palette.new_relations:
        if not allow_new:
            raise RejectedReply("unknown_label", label)
        description = (item.description or "").strip()
        if not description:
            raise RejectedReply("missing_field", f"description of new relation {label}")
        category = item.category if item.category in palette.categories else NEW_CATEGORY
        palette.new_relations[label] = PaletteRelation(
            name=label, description=description, category=category
        )
    return src, label, dst, category, " ".join(item.reason.split())


class Relations(Stage):
    name = STAGE
    inputs = ("pairs", "concepts")
    # The LLM implementation marks each candidate pair; the offline one the whole domain.
    resume_key = "pair"
    reset = ("pipeline/delete_relations", "pipeline/delete_paths")
    prompt = "relations"

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(STAGE) as rep:
            _offline(ctx, rep, _palette(ctx))
            return rep

    def pending_items(self, ctx: BuildContext, rep: StageReport) -> list[dict]:
        pairs = ctx.store.query(
            "pipeline/candidate_pairs",
            domain=ctx.domain,
            generation=ctx.generation,
            limit=ctx.config.key_evidence,
        )
        return ctx.pending(STAGE, rep, pairs, item=pair_item)

    def slots(self, ctx: BuildContext, item: dict) -> dict[str, object]:
        p = item
        return {
            "palette": _palette(ctx).describe(),
            "a_key": p["a_key"],
            "b_key": p["b_key"],
            "concept_a": _block(p["a_key"], p["a_name"], p["a_summary"], p["a_facts"]),
            "concept_b": _block(p["b_key"], p["b_name"], p["b_summary"], p["b_facts"]),
            "new_relations": "allowed (give a description and a category)"
            if ctx.config.allow_new_relations
            else "not allowed",
        }

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        with ctx.stage(STAGE) as rep:
            palette = _palette(ctx)
            todo = self.pending_items(ctx, rep)
            prov = self.model_provenance(ctx, model)

            async def one(p: dict) -> None:
                reply = await model.ask("relations", RelationsReply, **self.slots(ctx, p))
                _write_reply(ctx, rep, p, reply, palette, prov)

            self.each_item(ctx, rep, model, todo, one)
            _record_new_relations(ctx, rep, palette)
            return rep


def _palette(ctx: BuildContext) -> Palette:
    if ctx.palette is None:
        raise InputError(f"domain {ctx.domain!r} has no relation palette: pass --palette FILE")
    return ctx.palette


class Evidence(BaseModel):
    """One proposed edge with the evidence that supports it (best evidence kept)."""

    source: str
    label: str
    target: str
    category: str
    score: float
    text: str  # the evidence, verbatim: one fact, or two adjacent facts
    facts: list[str]  # the quoted facts' uids


def concept_patterns(concepts: list[dict]) -> dict[str, list[re.Pattern[str]]]:
    """Per concept key, the patterns of its name and mention terms; a phrase that names one
    concept is never a mention term of another."""
    names = {norm(c["name"]): c["key"] for c in concepts if c.get("name")}
    out: dict[str, list[re.Pattern[str]]] = {}
    for c in concepts:
        phrases = [c["name"]] if c.get("name") else []
        terms = terms_of_name(c["name"], c["terms"]) if c.get("name") else c["terms"]
        phrases += [t for t in terms if names.get(norm(t), c["key"]) == c["key"]]
        uniq = list(dict.fromkeys(norm(p) for p in phrases if p and p.strip()))
        out[c["key"]] = [term_pattern(p) for p in uniq]
    return out


def _ordered_facts(facts: list[dict]) -> list[list[dict]]:
    """Facts grouped by chunk, in their order in the chunk text."""
    by_chunk: dict[str, list[dict]] = {}
    for f in facts:
        by_chunk.setdefault(f["chunk"], []).append(f)
    groups = []
    for rows in by_chunk.values():
        text = rows[0]["chunk_text"] or ""
        rows.sort(
            key=lambda f: (
                text.find(f["text"]) if f["text"] in text else 10**9,
                f["text"],
                f["uid"],
            )
        )
        groups.append(rows)
    return groups


SUBJECT_WORDS = 3  # words before a sentence's subject ("A long drought", "the first such")


def _words_before(text: str, pos: int, start: int = 0) -> int:
    return len(WORD.findall(text[start:pos]))


def evidence_edges(
    facts: list[dict],
    patterns: dict[str, list[re.Pattern[str]]],
    labels: list[LabelCues],
    min_score: float,
    max_per_direction: int,
) -> tuple[list[Evidence], dict[str, int]]:
    """Every edge some evidence supports, with its best evidence; and counts for the report.
    Single facts first; two adjacent facts of a chunk only for a pair no single fact links."""
    best: dict[tuple[str, str, str], Evidence] = {}
    counts = {
        "facts_linking_two_concepts": 0,
        "facts_without_relation_cue": 0,
        "adjacent_fact_evidence": 0,
    }
    # Every occurrence, for single facts: a cue may join any two of them, not only the
    # concepts' first mentions ("Newton stated his law in terms of momentum: the net force
    # equals the change in momentum").
    occurrences = {f["uid"]: find_mentions(f["text"], patterns, every=True) for f in facts}
    mentions = {uid: first_mentions(occ) for uid, occ in occurrences.items()}
    # Parse only the facts that could be evidence: those naming two concepts.
    docs = parse_all([f["text"] for f in facts if len(mentions[f["uid"]]) >= 2])

    def offer(
        text: str, uids: list[str], a: Mention, b: Mention, window: tuple[int, int] | None = None
    ) -> int:
        n = 0
        doc = None if window else docs[text]
        for m in match_labels(text, a, b, labels, min_score, window, doc):
            key = (m.source, m.label, m.target)
            old = best.get(key)
            if (
                old is None
                or m.score > old.score
                or (m.score == old.score and len(uids) < len(old.facts))
            ):
                best[key] = Evidence(
                    source=m.source,
                    label=m.label,
                    target=m.target,
                    category=m.category,
                    score=m.score,
                    text=text,
                    facts=uids,
                )
            n += 1
        return n

    for f in facts:
        ms = mentions[f["uid"]]
        if len(ms) < 2:
            continue
        counts["facts_linking_two_concepts"] += 1
        found = 0
        occ = occurrences[f["uid"]]
        # Every pair of mentions: the parse decides which ones a cue joins.
        for i, a in enumerate(occ):
            for b in occ[i + 1 :]:
                if a.concept != b.concept:
                    found += offer(f["text"], [f["uid"]], a, b)
        if not found:
            counts["facts_without_relation_cue"] += 1
    linked = {frozenset((k[0], k[2])) for k in best}
    for group in _ordered_facts(facts):
        for f1, f2 in zip(group, group[1:], strict=False):
            opening = CONNECTIVE.match(f2["text"])
            if not opening:
                continue
            text = f"{f1['text']} {f2['text']}"
            shift = len(f1["text"]) + 1
            # The connective relates what the sentences are about: their subjects, so each
            # concept must open its sentence ("A long drought hit ... As a result, famine
            # spread"), not sit deep in it ("... to produce energy through fission").
            m1 = {
                m.concept: m
                for m in mentions[f1["uid"]]
                if _words_before(f1["text"], m.start) <= SUBJECT_WORDS
            }
            m2 = {
                m.concept: Mention(m.concept, m.start + shift, m.end + shift)
                for m in mentions[f2["uid"]]
                if _words_before(f2["text"], m.start, opening.end()) <= SUBJECT_WORDS
            }
            for ka, a in m1.items():
                for kb, b in m2.items():
                    if ka == kb or frozenset((ka, kb)) in linked or kb in m1 or ka in m2:
                        continue
                    # The second sentence must open on the connective that relates the two
                    # ("As a result, ...", "In contrast, ...", "For example, ...").
                    if offer(text, [f1["uid"], f2["uid"]], a, b, (shift, shift + opening.end())):
                        counts["adjacent_fact_evidence"] += 1
    # Exhaustive but bounded: at most `max_per_direction` labels per ordered pair.
    per_dir: dict[tuple[str, str], list[Evidence]] = {}
    for ev in best.values():
        per_dir.setdefault((ev.source, ev.target), []).append(ev)
    kept = []
    for evs in per_dir.values():
        evs.sort(key=lambda e: (-e.score, e.label))
        kept.extend(evs[:max_per_direction])
    kept.sort(key=lambda e: (e.source, e.target, e.label))
    return kept, counts


def _offline(ctx: BuildContext, rep: StageReport, palette: Palette) -> None:
    cfg = ctx.config
    concepts = ctx.store.query(
        "pipeline/relation_concepts", domain=ctx.domain, generation=ctx.generation
    )
    facts = ctx.store.query("pipeline/relation_facts", domain=ctx.domain)
    labels = [label_cues(r) for r in palette.relations()]
    input_hash = content_uid(
        fingerprint([f["uid"] for f in facts]),
        fingerprint([f"{c['key']}:{c['name']}:{'|'.join(c['terms'])}" for c in concepts]),
        fingerprint(sorted(f"{lab.name}:{lab.category}" for lab in labels)),
        cfg.offline_min_label_score,
        cfg.offline_max_relations,
        MATCHER,  # new matching rules or parser: the edges are drawn again, not resumed
    )
    if ctx.resumed_domain(STAGE, rep, input_hash):
        return
    edges, counts = evidence_edges(
        facts,
        concept_patterns(concepts),
        labels,
        cfg.offline_min_label_score,
        cfg.offline_max_relations,
    )
    rep.counts.update(counts)
    prov = ctx.provenance(
        STAGE,
        source="offline: facts mentioning both concepts, palette "
        "cue words, direction from the sentence",
    )
    rows = []
    kept = ctx.earlier_links("RELATES")  # an earlier generation's edge stays its own
    for ev in edges:
        row = edge_row(ctx, ev.source, ev.label, ev.target, ev.category, ev.text, prov, ev.score)
        if row["uid"] not in kept:
            rows.append({**row, "evidence": ev.facts})
    pairs = {frozenset((e.source, e.target)) for e in edges}
    both = {
        p
        for p in pairs
        if len(p) == 2
        and all(
            any(e.source == s and e.target == t for e in edges)
            for s, t in (tuple(p), tuple(p)[::-1])
        )
    }
    rep.counts.update(edges=len(rows), linked_pairs=len(pairs), pairs_both_directions=len(both))
    ctx.write_items(
        STAGE,
        [
            ("pipeline/delete_relations", {"domain": ctx.domain, "generation": ctx.generation}),
            ("pipeline/write_relations", {"rows": rows, "generation": ctx.generation}),
        ],
        ["domain"],
        input_hash,
    )
    rep.written = len(rows)
    rep.note(
        f"{len(rows)} edges over {len(pairs)} concept pairs ({len(both)} in both "
        f"directions), each quoting a fact that mentions both concepts; "
        f"{counts['facts_without_relation_cue']} facts link two concepts with no palette "
        f"cue (no edge)"
    )


def _block(key: str, name: str, summary: str, facts: list[str]) -> str:
    lines = "\n".join(f"  - {f}" for f in facts)
    return f"{key} ({name}): {summary}\n  Key evidence:\n{lines}"


def _write_reply(
    ctx: BuildContext,
    rep: StageReport,
    p: dict,
    reply: RelationsReply,
    palette: Palette,
    prov: str,
) -> None:
    """The pair's valid relations (each invalid one rejected and counted), with its marker."""
    rows, seen = [], set()
    for item in reply.relations:
        try:
            src, label, dst, cat, reason = validate_relation(
                item,
                p["a_key"],
                p["b_key"],
                palette,
                ctx.config.allow_new_relations,
                evidence=p["a_facts"] + p["b_facts"],
            )
        except RejectedReply as exc:
            rep.reject(exc.reason)
            continue
        if (src, label, dst) in seen:
            continue
        seen.add((src, label, dst))
        rows.append(edge_row(ctx, src, label, dst, cat, reason, prov))
    ctx.write_items(
        STAGE,
        [("pipeline/write_relations", {"rows": rows, "generation": ctx.generation})],
        [pair_item(p)],
    )
    rep.written += len(rows)


def _record_new_relations(ctx: BuildContext, rep: StageReport, palette: Palette) -> None:
    if palette.new_relations:
        body = {k: v.model_dump() for k, v in palette.new_relations.items()}
        ctx.store.query(
            "pipeline/domain_add_new_relations",
            domain=ctx.domain,
            new_relations=json.dumps(body, ensure_ascii=False, sort_keys=True),
        )
        rep.note(f"{len(body)} new relation labels recorded with their descriptions")
