"""Stage 8: questions. One question per perspective that hints at its focus in general
conceptual words, never naming relation labels (or synonyms) or using the reasons, anchored on
the concepts by name. Targets = the perspective's paths, distractors = the other valid paths of
its concept sequence (>= 1 of each). LLM route: `prompts/pipeline/question.md`; offline route:
templates per relation-category family (`question_text.py`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from construction.pipeline import question_budget
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import BuildLLM, RejectedReply
from construction.pipeline.question_text import offline_question, question_problem
from construction.pipeline.stage import Stage
from kg.ids import question_uid

STAGE = "questions"


class QuestionReply(BaseModel):
    question: str = Field(min_length=1)
    theme: str = Field(min_length=1, description="1-3 word name of the perspective")


def valid_paths(v: dict) -> list[dict]:
    """Targets then distractors, named path_N by their position (the published layout)."""
    rows = [{"uid": p["uid"], "target": True} for p in v["targets"]]
    rows += [{"uid": p["uid"], "target": False} for p in v["distractors"]]
    return [{**r, "pos": i, "name": f"path_{i}"} for i, r in enumerate(rows)]


def pool(ctx: BuildContext, keys: list[str]) -> list[dict]:
    """`topic_N_source` / `topic_N_target` for a pair, `_source` along a longer chain."""
    from kg.ids import concept_uid

    out = []
    for i, k in enumerate(keys):
        suffix = "target" if len(keys) == 2 and i == 1 else "source"
        out.append({"uid": concept_uid(ctx.domain, k), "key": f"{k}_{suffix}", "pos": i})
    return out


def labels_of(v: dict) -> list[str]:
    return sorted({lab for p in v["targets"] + v["distractors"] for lab in p["labels"]})


def question_row(
    ctx: BuildContext, v: dict, qid: int, text: str, theme: str, provenance: str
) -> dict:
    return {
        "uid": question_uid(ctx.domain, qid),
        "id": qid,
        "domain": ctx.domain,
        "theme": theme,
        "text": text,
        "perspective": v["uid"],
        "hop": question_budget.hops(v),
        "provenance": provenance,
        "generation": ctx.generation,
        "valid": valid_paths(v),
        "pool": pool(ctx, v["concept_keys"]),
    }


def question_ids(
    ctx: BuildContext, askable: list[dict], chosen: set[str], views: list[dict]
) -> dict[str, int]:
    """Question ids by a stable order, never by which calls failed: the generation's chosen
    perspectives in the query's content order (hops, concept keys, focus) get consecutive ids
    after every earlier generation's questions. A rerun after failed calls gives each
    perspective the id a clean build gives it; questions already written keep theirs."""
    base = ctx.store.query(
        "pipeline/max_question_id", domain=ctx.domain, generation=ctx.generation
    )[0]["max_id"]
    next_id = -1 if base is None else int(base)
    written = {v["uid"]: v["question_id"] for v in views if v["question_id"] is not None}
    taken = set(written.values())
    ids: dict[str, int] = {}
    for v in askable:
        if v["uid"] not in chosen:
            continue
        next_id += 1
        ids[v["uid"]] = written.get(v["uid"], next_id)
    # An id some other written question already has (a domain built before ids were stable):
    # the next free id after every question, as before.
    top = max([*taken, *ids.values()], default=-1)
    for uid, qid in ids.items():
        if uid not in written and qid in taken:
            top += 1
            ids[uid] = top
    return ids


def _askable(ctx: BuildContext, rep: StageReport) -> tuple[list[dict], dict[str, int]]:
    """The perspectives to ask about in this run (within the question budget) and the
    question id of each chosen one."""
    views = ctx.store.query(
        "pipeline/perspectives_for_questions", domain=ctx.domain, generation=ctx.generation
    )
    todo = ctx.pending(STAGE, rep, views)
    usable = [v for v in todo if v["targets"] and v["distractors"]]
    rep.skipped += len(todo) - len(usable)
    # A later generation (`kg build --extend`) asks about its new chunks only: the earlier
    # chunks' perspectives were asked by the generation that built them.
    stale = [v for v in usable if not v["fresh"]]
    if stale:
        rep.note(f"{len(stale)} perspectives over earlier chunks only: not asked again")
        rep.skipped += len(stale)
        usable = [v for v in usable if v["fresh"]]
    # The budget is chosen over every askable perspective of the generation, resumed ones
    # included, so a rerun selects the same ones; those left out are counted, not asked.
    askable = [v for v in views if v["targets"] and v["distractors"] and v["fresh"]]
    chosen = {v["uid"] for v in question_budget.select(askable, ctx.config.max_questions)}
    over = [v for v in usable if v["uid"] not in chosen]
    if over:
        # Not items of this build (a rerun with a larger budget asks them), so they are
        # neither done nor failed.
        rep.counts["over_question_budget"] = len(over)
        rep.items -= len(over)
        rep.note(
            f"{len(askable) - len(chosen)} of {len(askable)} perspectives left without a "
            f"question by the budget of {ctx.config.max_questions} (--max-questions; "
            "per hop in the paper's proportions, round-robin over endpoint pairs)"
        )
        usable = [v for v in usable if v["uid"] in chosen]
    return usable, question_ids(ctx, askable, chosen, views)


class Questions(Stage):
    name = STAGE
    inputs = ("paths", "concepts")
    resume_key = "perspective"
    reset = ("pipeline/delete_questions",)
    prompt = "question"

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(STAGE) as rep:
            usable, ids = _askable(ctx, rep)
            prov = ctx.provenance(STAGE, source="offline: templates per relation category")
            rows: list[dict[str, Any]] = []
            items: list[str] = []
            siblings: dict[tuple[str, ...], int] = {}
            # No two questions of a domain share their text (resumed ones included).
            used = {
                r["text"] for r in ctx.store.query("pipeline/question_texts", domain=ctx.domain)
            }
            bar = ctx.bar("questions", len(usable))
            for v in usable:
                bar.advance()
                seq = tuple(v["concept_keys"])
                variant = siblings[seq] = siblings.get(seq, -1) + 1
                text = offline_question(
                    v["names"],
                    v["categories"] or v["focus"],
                    v["theme"],
                    labels_of(v),
                    variant,
                    avoid=used,
                )
                if text is None:
                    rep.counts["no_clean_template"] = rep.counts.get("no_clean_template", 0) + 1
                    rep.skipped += 1
                    items.append(v["uid"])  # done: nothing a rerun could do differently
                    continue
                used.add(text)
                rows.append(question_row(ctx, v, ids[v["uid"]], text, v["theme"], prov))
                items.append(v["uid"])
            bar.close()
            for start in range(0, len(items), 200):
                part = set(items[start : start + 200])
                ctx.write_items(
                    STAGE,
                    [
                        (
                            "pipeline/write_questions",
                            {"rows": [r for r in rows if r["perspective"] in part]},
                        )
                    ],
                    part,
                )
            rep.written = len(rows)
            if rep.skipped:
                rep.note(
                    f"{rep.skipped} perspectives without a question (no target/distractor "
                    f"split or no template free of relation words)"
                )
            return rep

    def pending_items(self, ctx: BuildContext, rep: StageReport) -> list[dict]:
        return _askable(ctx, rep)[0]

    def slots(self, ctx: BuildContext, item: dict) -> dict[str, object]:
        v = item
        concepts = "\n".join(
            f"- {k} = {n}: {s}"
            for k, n, s in zip(v["concept_keys"], v["names"], v["summaries"], strict=True)
        )
        return {
            "concepts": concepts,
            "theme": v["theme"],
            "targets": "\n".join(f"- {p['signature']}" for p in v["targets"]),
            "distractors": "\n".join(f"- {p['signature']}" for p in v["distractors"]),
            "labels": ", ".join(labels_of(v)),
        }

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        with ctx.stage(STAGE) as rep:
            usable, ids = _askable(ctx, rep)
            prov = self.model_provenance(ctx, model)

            async def one(v: dict) -> None:
                labels = labels_of(v)
                reply = await model.ask("question", QuestionReply, **self.slots(ctx, v))
                text = " ".join(reply.question.split())
                # The model sees keys in signatures; the question must use names instead.
                problem = question_problem(text, v["names"], labels)
                if problem:
                    raise RejectedReply(problem, text[:120])
                theme = reply.theme.strip() or v["theme"]
                row = question_row(ctx, v, ids[v["uid"]], text, theme, prov)
                ctx.write_items(STAGE, [("pipeline/write_questions", {"rows": [row]})], [v["uid"]])
                rep.written += 1

            self.each_item(ctx, rep, model, usable, one)
            return rep
