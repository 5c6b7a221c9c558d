"""Stage 4b: concept summaries. Each concept gets a short name and a one-sentence representative
summary that synthesizes its facts without adding information. LLM route:
`prompts/pipeline/summary.md`; offline: the most central fact plus the topic words."""

from __future__ import annotations

from pydantic import BaseModel, Field

from construction.pipeline import noun_phrases as np_
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import BuildLLM, RejectedReply
from construction.pipeline.stage import Stage
from construction.pipeline.syntax import mostly_adjective

STAGE = "concepts"


class SummaryReply(BaseModel):
    name: str = Field(min_length=1, description="2-6 word name of the shared focus")
    summary: str = Field(min_length=1, description="one sentence synthesizing the facts")


def offline_name(topic_words: list[str], taken: set[str], facts: list[str] | None = None) -> str:
    """The concept's most distinctive noun phrase (its c-TF-IDF ranked `topic_words`) that
    occurs in its facts, is not a generic word, not a word the facts use as an adjective
    ("French troops") and is not taken in the domain, written as the facts write it. Without
    facts (renaming a model's duplicate name) the checks against the facts are skipped."""
    stops = np_.stop_words()
    for phrase in topic_words:
        if not phrase or not np_.nameable(phrase) or phrase.lower() in stops:
            continue
        if facts is not None and not np_.occurs_in(phrase, facts):
            continue
        if facts is not None and " " not in phrase and mostly_adjective(phrase, facts):
            continue
        name = np_.surface_form(phrase, facts) if facts else phrase
        if name.lower() not in taken:
            return name
    # Every phrase is taken: the best one qualified by the next, both from the facts.
    usable = [p for p in topic_words if p and np_.nameable(p)] or ["concept"]
    base = usable[0]
    extra = next((p for p in usable[1:] if p not in base and base not in p), "")
    name = f"{base} ({extra})" if extra else base
    n = 2
    while name.lower() in taken:
        name, n = f"{base} ({extra or n})" if n == 2 and extra else f"{base} {n}", n + 1
    return name


def offline_summary(central: str, topic_words: list[str]) -> str:
    return f"{central} (Topic words: {', '.join(topic_words[:5])}.)"


def row(uid: str, name: str, summary: str, topic_words: list[str], provenance: str) -> dict:
    return {
        "uid": uid,
        "name": name,
        "summary": summary,
        "provenance": provenance,
        "text": f"{name}. {summary} {' '.join(topic_words)}",
    }


def _todo(ctx: BuildContext, rep: StageReport, evidence: int) -> tuple[list[dict], set[str]]:
    """The concepts left to name (each with at most `evidence` facts) and the names taken."""
    concepts = ctx.store.query(
        "pipeline/concepts_with_evidence",
        domain=ctx.domain,
        generation=ctx.generation,
        limit=evidence,
    )
    todo = ctx.pending(STAGE, rep, concepts)
    pending = {c["uid"] for c in todo}
    taken = {c["name"].lower() for c in concepts if c["uid"] not in pending and c["name"]}
    if ctx.generation:  # `--extend`: an earlier generation's names are never given again
        earlier = ctx.store.query(
            "pipeline/earlier_concepts", domain=ctx.domain, generation=ctx.generation
        )
        taken |= {c["name"].lower() for c in earlier if c["name"]}
    return todo, taken


class Concepts(Stage):
    name = STAGE
    inputs = ("clusters",)
    resume_key = "concept"
    prompt = "summary"

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(STAGE) as rep:
            # Offline names are checked against every fact of the concept.
            todo, taken = _todo(ctx, rep, 100000)
            prov = ctx.provenance(
                STAGE, source="offline: most distinctive noun phrase (c-TF-IDF) + central fact"
            )
            rows = []
            bar = ctx.bar("concepts", len(todo))
            for c in todo:
                central = next(
                    (
                        t
                        for t, u in zip(c["facts"], c["fact_uids"], strict=True)
                        if u == c["central_fact"]
                    ),
                    c["facts"][0] if c["facts"] else "",
                )
                name = offline_name(c["topic_words"], taken, c["facts"])
                taken.add(name.lower())
                rows.append(
                    row(
                        c["uid"],
                        name,
                        offline_summary(central, c["topic_words"]),
                        c["topic_words"],
                        prov,
                    )
                )
                bar.advance()
            bar.close()
            ctx.write_items(
                STAGE,
                [("pipeline/write_concept_summaries", {"rows": rows})],
                [r["uid"] for r in rows],
            )
            rep.written = len(rows)
            return rep

    def pending_items(self, ctx: BuildContext, rep: StageReport) -> list[dict]:
        # The model sees the key evidence only.
        return _todo(ctx, rep, ctx.config.key_evidence)[0]

    def slots(self, ctx: BuildContext, item: dict) -> dict[str, object]:
        facts = "\n".join(f"- {t}" for t in item["facts"])
        return {"facts": facts, "topic_words": ", ".join(item["topic_words"])}

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        with ctx.stage(STAGE) as rep:
            todo, taken = _todo(ctx, rep, ctx.config.key_evidence)
            prov = self.model_provenance(ctx, model)

            async def one(c: dict) -> None:
                reply = await model.ask("summary", SummaryReply, **self.slots(ctx, c))
                name = " ".join(reply.name.split())
                if len(name.split()) > 8:
                    raise RejectedReply("invalid_reply", "name longer than 8 words")
                if name.lower() in taken:
                    name = offline_name([name.lower(), *c["topic_words"]], taken)
                taken.add(name.lower())
                r = row(c["uid"], name, " ".join(reply.summary.split()), c["topic_words"], prov)
                ctx.write_items(
                    STAGE, [("pipeline/write_concept_summaries", {"rows": [r]})], [c["uid"]]
                )
                rep.written += 1

            self.each_item(ctx, rep, model, todo, one)
            return rep
