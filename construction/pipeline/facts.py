"""Stage 2: facts. Per chunk the 3-7 most important self-contained single-fact sentences, each
with its key entities. LLM route: `prompts/pipeline/facts.md` with the `FactsReply` schema. Offline
route: sentence segmentation, pronoun check, corpus keyphrases as entities."""

from __future__ import annotations

import math
from collections import Counter

from pydantic import BaseModel, Field

from construction.pipeline import text_units as tu
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.fact_filter import non_fact_kind
from construction.pipeline.llm_route import BuildLLM, RejectedReply
from construction.pipeline.stage import Stage
from kg.ids import entity_uid, fact_uid

STAGE = "facts"


class FactItem(BaseModel):
    sentence: str = Field(min_length=1)
    entities: list[str] = Field(min_length=1)


class FactsReply(BaseModel):
    facts: list[FactItem] = Field(min_length=1)


def fact_row(
    ctx: BuildContext, chunk_uid: str, text: str, entities: list[str], provenance: str
) -> dict:
    ents = []
    for name in dict.fromkeys(e.strip() for e in entities if e.strip()):
        ents.append({"uid": entity_uid(ctx.domain, name), "name": name})
    return {
        "uid": fact_uid(ctx.domain, text),
        "chunk": chunk_uid,
        "domain": ctx.domain,
        "text": text,
        "entities": ents,
        "provenance": provenance,
    }


def offline_facts(
    text: str, df: Counter[str], n_sentences: int, min_facts: int, max_facts: int, max_entities: int
) -> tuple[list[tuple[str, list[str]]], Counter[str]]:
    """(facts with entities, sentences dropped per reason). Sentences that state no fact
    (`fact_filter.KINDS`) are dropped first; importance = summed rarity of recurring keyphrases
    per sqrt(length); facts keep their order in the chunk."""
    kept: list[tuple[int, float, str, list[str]]] = []
    dropped: Counter[str] = Counter()
    for i, sent in enumerate(tu.sentences(text)):
        kind = non_fact_kind(sent)
        if kind is not None:
            dropped[f"non_fact_{kind}"] += 1
            continue
        if not tu.is_complete(sent):
            dropped["incomplete"] += 1
            continue
        if tu.bare_pronoun(sent):
            # Offline there is no coreference model: a sentence whose subject is a bare
            # pronoun is not self-contained, so it is dropped (and counted), never garbled.
            dropped["bare_pronoun"] += 1
            continue
        ents = tu.key_entities(sent, df, n_sentences, max_entities)
        score = sum(math.log(1 + n_sentences / df[e]) for e in ents if df[e] > 0)
        kept.append((i, score / math.sqrt(len(sent.split())), sent, ents))
    best = sorted(kept, key=lambda k: -k[1])[:max_facts]
    if len(kept) > len(best):
        dropped["below_top_facts"] += len(kept) - len(best)
    return [(s, e) for _, _, s, e in sorted(best)], dropped


def non_fact_total(counts: dict[str, int]) -> int:
    return sum(v for k, v in counts.items() if k.startswith("non_fact_"))


class Facts(Stage):
    name = STAGE
    inputs = ("chunks",)
    resume_key = "chunk"
    reset = ("pipeline/delete_facts", "pipeline/delete_concepts")
    prompt = "facts"

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(STAGE) as rep:
            chunks = ctx.store.query("pipeline/chunks_of_domain", domain=ctx.domain)
            _offline(ctx, rep, chunks, ctx.pending(STAGE, rep, chunks))
            return rep

    def pending_items(self, ctx: BuildContext, rep: StageReport) -> list[dict]:
        chunks = ctx.store.query("pipeline/chunks_of_domain", domain=ctx.domain)
        return ctx.pending(STAGE, rep, chunks)

    def slots(self, ctx: BuildContext, item: dict) -> dict[str, object]:
        cfg = ctx.config
        return {"chunk": item["text"], "min_facts": cfg.min_facts, "max_facts": cfg.max_facts}

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        with ctx.stage(STAGE) as rep:
            todo = self.pending_items(ctx, rep)
            prov = self.model_provenance(ctx, model)

            async def one(c: dict) -> None:
                reply = await model.ask("facts", FactsReply, **self.slots(ctx, c))
                # The model is asked for facts only; what still states none is dropped and
                # counted.
                kept = []
                for sent, ents in validate_reply(reply, ctx.config.max_facts):
                    kind = non_fact_kind(sent)
                    if kind is None:
                        kept.append((sent, ents))
                    else:
                        key = f"non_fact_{kind}"
                        rep.counts[key] = rep.counts.get(key, 0) + 1
                        rep.skipped += 1
                rows = [fact_row(ctx, c["uid"], s, e, prov) for s, e in kept]
                _flush(ctx, rep, rows, [c["uid"]])

            self.each_item(ctx, rep, model, todo, one)
            non_facts = non_fact_total(rep.counts)
            if non_facts:
                rep.counts["non_facts"] = non_facts
                rep.note(f"{non_facts} model sentences state no fact and were dropped")
            return rep


def _offline(ctx: BuildContext, rep: StageReport, chunks: list[dict], todo: list[dict]) -> None:
    cfg = ctx.config
    all_sents = [s for c in chunks for s in tu.sentences(c["text"])]
    df = tu.phrase_frequencies(all_sents)
    prov = ctx.provenance(STAGE, source="offline: sentence segmentation + corpus keyphrases")
    bar = ctx.bar("facts", len(todo))
    batch: list[dict] = []
    batch_items: list[str] = []
    for c in todo:
        facts, dropped = offline_facts(
            c["text"], df, len(all_sents), cfg.min_facts, cfg.max_facts, cfg.max_entities
        )
        rep.skipped += sum(dropped.values())
        for key, n in dropped.items():
            rep.counts[key] = rep.counts.get(key, 0) + n
        if len(facts) < cfg.min_facts:
            rep.counts["chunks_below_min_facts"] = rep.counts.get("chunks_below_min_facts", 0) + 1
        batch.extend(fact_row(ctx, c["uid"], s, e, prov) for s, e in facts)
        batch_items.append(c["uid"])
        if len(batch_items) >= 20:
            _flush(ctx, rep, batch, batch_items)
            bar.advance(len(batch_items))
            batch, batch_items = [], []
    if batch_items:
        _flush(ctx, rep, batch, batch_items)
        bar.advance(len(batch_items))
    bar.close()
    non_facts = non_fact_total(rep.counts)
    rep.counts["non_facts"] = non_facts
    if non_facts:
        kinds = ", ".join(
            f"{k.removeprefix('non_fact_')} {v}"
            for k, v in sorted(rep.counts.items())
            if k.startswith("non_fact_")
        )
        rep.note(
            f"{non_facts} sentences state no fact and were dropped before clustering ({kinds})"
        )
    if rep.skipped > non_facts:
        rep.note(
            f"{rep.skipped - non_facts} other sentences not kept (cut at a chunk edge, "
            f"unresolved pronoun, too short/long, or below the top {cfg.max_facts} of "
            f"their chunk)"
        )


def _flush(ctx: BuildContext, rep: StageReport, rows: list[dict], items: list[str]) -> None:
    ctx.write_items(STAGE, [("pipeline/write_facts", {"rows": rows})], items)
    rep.written += len(rows)


def validate_reply(reply: FactsReply, max_facts: int) -> list[tuple[str, list[str]]]:
    """Single sentences with entities; more than `max_facts` is a reply we do not trust."""
    if len(reply.facts) > max_facts:
        raise RejectedReply("too_many_facts", f"{len(reply.facts)} > {max_facts}")
    out = []
    for item in reply.facts:
        sent = " ".join(item.sentence.split())
        ents = [e.strip() for e in item.entities if e.strip()]
        if not ents:
            raise RejectedReply("missing_field", "a fact without entities")
        out.append((sent, ents))
    return out
