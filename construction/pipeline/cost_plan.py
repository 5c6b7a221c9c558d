"""What an LLM build will ask before it asks anything (`kg build --plan`, and the summary line
`kg build --model` prints before it starts): calls, prompt and completion tokens, cost and wall
time per model stage, in the plan model `kg eval plan` uses (`kg.llm.plan`).

Nothing is called and nothing is written: the plan reads the chunk files, the palette and the
graph (`PlanContext` refuses every write).

Exact and estimated counts. A stage's calls are exact when its items are known before the build
asks anything: the facts stage asks once per chunk left (the chunk files and the graph say which),
and a later model stage whose inputs the graph already holds, with no earlier stage of this
build asking a model or bringing new chunks (a resumed build, `--from-stage`, one stage). Those
stages' own item queries (`Stage.pending_items`) give the items and their prompts are rendered by
the stages' own prompt builders (`Stage.slots`). A stage whose items come from earlier model
replies of this build (how many concepts the model's facts make, how many pairs, perspectives)
is estimated per chunk: from earlier LLM builds in the graph (their stage reports), else from the
offline build of the demo sample (`DEMO_PER_CHUNK`, measured by benchmarks/build_plan.py). Running
the offline stages first would not make those counts exact: the model's facts are not the offline
facts, and the stages write what they find.
Prompt tokens are counted with the regex tokenizer (`kg.llm.tokens`) on the rendered prompts of
exact stages; an estimated stage's prompts are the observed mean per call of earlier LLM builds
(server usage), else the mean of the rendered prompts over the demo sample's offline graph
(`DEMO_PROMPT_TOKENS`). Completion tokens are `--max-tokens` (a ceiling), else the observed mean
per call, else an assumed length per stage (`ASSUMED_COMPLETION`). Repair requests (a reply that
fails its schema) are not foreseen: a real build may send a few more.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from construction.pipeline import chunks as chunk_stage
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import BuildLLM
from construction.pipeline.runner import BuildPlan, build_generation, plan_stages, stage_names
from construction.pipeline.stage import Stage
from kg import domains
from kg.llm.plan import EXACT, CostPlan, RoleEstimate
from kg.llm.tokens import count_tokens
from kg.palette import load_palette, stored_palette
from kg.runs import decode_run
from kg.store import Store

# Reply lengths assumed without --max-tokens or earlier builds' usage (tokens per call): a
# facts reply holds up to 7 sentences with entities; a relations reply a few edges with reasons.
ASSUMED_COMPLETION = {
    "facts": 300,
    "concepts": 60,
    "relations": 250,
    "questions": 80,
    "evidence": 150,
}
# Calls per chunk of the stages whose items come from earlier model replies, and prompt tokens
# per call (regex tokenizer, rendered prompts), on the offline build of demo/build (30 chunks,
# palette.json; `python benchmarks/build_plan.py --corpus demo`, 4 Dec 2026). Questions are
# capped by --max-questions; evidence asks once per question.
DEMO_PER_CHUNK = {"concepts": 0.20, "relations": 0.30, "questions": 0.27}
DEMO_PROMPT_TOKENS = {"concepts": 337, "relations": 1042, "questions": 353, "evidence": 1166}
DEMO_SOURCE = "offline demo build (benchmarks/build_plan.py)"


class BuildCostPlan(CostPlan):
    """`kg build --plan`'s: the model stages of one build of a domain."""

    domain: str
    model: str
    chunks: int  # chunks of the domain after the build's chunks stage
    new_chunks: int  # of them, chunks the graph does not hold yet

    def scope(self) -> str:
        return f"build of {self.domain} ({self.chunks} chunk(s), {self.new_chunks} new)"


@dataclass
class PlanContext(BuildContext):
    """A build's context that reads what the build would read and writes nothing. The done
    markers of the stages the build resets first (`--from-stage`, `--replace`) are not read:
    those stages ask about every item again."""

    fresh: frozenset[str] = field(default_factory=frozenset)

    def done_items(self, stage: str) -> dict[str, str | None]:
        return {} if stage in self.fresh else BuildContext.done_items(self, stage)

    def _refuse(self, *_: Any, **__: Any) -> None:
        raise RuntimeError("the build plan writes nothing")

    write_items = mark_done = clear_state = _refuse


@dataclass
class Observed:
    """Per stage, what earlier LLM builds in the graph report."""

    label: str = ""
    # Per stage, how many earlier builds each figure comes from.
    ratio_runs: dict[str, int] = field(default_factory=dict)
    token_runs: dict[str, int] = field(default_factory=dict)
    per_chunk: dict[str, float] = field(default_factory=dict)
    prompt_per_call: dict[str, float] = field(default_factory=dict)
    completion_per_call: dict[str, float] = field(default_factory=dict)
    # Seconds per call of the model stages, each stage's wall time over its rounds of calls
    # (`concurrency` at a time).
    latency_s: float | None = None


def observed(store: Store, model: str, limit: int = 50) -> Observed:
    """Earlier LLM builds' per-stage figures: of `model` when it built before, else of any
    builder model. Calls are a stage's items less the resumed ones; tokens are the server's."""
    rows = store.query("pipeline/observed_build_stages", limit=limit)
    same = [r for r in rows if model in (r["models"] or [])]
    rows, label = (same, model) if same else (rows, "any model")
    out = Observed(label=label)
    sums: dict[str, list[float]] = {}  # stage -> [calls, tokens_in, tokens_out]
    waited = [0.0, 0.0]  # seconds of model stages, rounds of calls
    ratio: dict[str, list[float]] = {}  # stage -> [items, chunks] over builds asking facts
    for r in rows:
        summary = decode_run({"summary": r["summary"]})["summary"]
        stages = {s["stage"]: s for s in (summary or {}).get("stages", []) if "stage" in s}
        for name, s in stages.items():
            calls = int(s.get("items", 0)) - int(s.get("resumed", 0))
            if calls > 0 and s.get("tokens_in"):
                acc = sums.setdefault(name, [0.0, 0.0, 0.0])
                acc[0] += calls
                acc[1] += s["tokens_in"]
                acc[2] += s.get("tokens_out", 0)
                out.token_runs[name] = out.token_runs.get(name, 0) + 1
                in_flight = int(
                    (decode_run({"config": r["config"]})["config"] or {}).get("concurrency") or 1
                )
                waited[0] += float(s.get("seconds", 0.0))
                waited[1] += math.ceil(calls / in_flight)
        asked = int(stages.get("facts", {}).get("items", 0))
        for name, s in stages.items():
            if asked and name != "facts" and s.get("tokens_in"):
                acc = ratio.setdefault(name, [0.0, 0.0])
                acc[0] += int(s.get("items", 0))
                acc[1] += asked
                out.ratio_runs[name] = out.ratio_runs.get(name, 0) + 1
    for name, (n_calls, tin, tout) in sums.items():
        out.prompt_per_call[name] = tin / n_calls
        out.completion_per_call[name] = tout / n_calls
    out.per_chunk = {name: items / n for name, (items, n) in ratio.items()}
    if waited[1] and waited[0] > 0:
        out.latency_s = waited[0] / waited[1]
    return out


def _completion(model: BuildLLM, seen: Observed, stage: str) -> tuple[int, str]:
    """Tokens per reply of a stage and where the figure comes from."""
    cap = model.client.config.max_tokens
    if cap:
        return cap, "--max-tokens"
    if stage in seen.completion_per_call:
        mean = round(seen.completion_per_call[stage])
        return mean, f"observed ({seen.token_runs[stage]} earlier build(s) of {seen.label})"
    return ASSUMED_COMPLETION[stage], "assumed"


def _estimate(
    stage: str, chunks: int, seen: Observed, questions: int | None, budget: int | None
) -> tuple[int, float, str]:
    """(calls, prompt tokens per call, how) of a stage whose items this build's earlier
    model replies make."""
    prompt = seen.prompt_per_call.get(stage, DEMO_PROMPT_TOKENS[stage])
    if stage == "evidence":  # one call per question the questions stage writes
        return questions or 0, prompt, "estimated: one per question estimated"
    if stage in seen.per_chunk:
        rate = seen.per_chunk[stage]
        source = f"{seen.ratio_runs[stage]} earlier build(s) of {seen.label}"
    else:
        rate, source = DEMO_PER_CHUNK[stage], DEMO_SOURCE
    calls = math.ceil(round(rate * chunks, 6))  # 9 / 30 * 30 is 9.000000000000002
    how = f"estimated: {rate:.2f} per chunk, {source}"
    if stage == "questions" and budget and calls > budget:
        calls, how = budget, f"{how}; capped by --max-questions {budget}"
    return calls, prompt, how


def plan_build(
    store: Store, plan: BuildPlan, model: BuildLLM | None, latency_s: float | None = None
) -> BuildCostPlan:
    """The cost plan of this build (nothing is called, nothing is written)."""
    config = plan.config
    file_chunks = (
        chunk_stage.read_chunks(
            plan.chunk_paths, config.domain, config.chunk_size, config.chunk_overlap
        )
        if plan.chunk_paths
        else []
    )
    palette = load_palette(plan.palette_path) if plan.palette_path else None
    uids = [c.uid for c in file_chunks]
    found = domains.check_build(
        store, config.domain, uids, replace=plan.replace, yes=plan.yes, extend=plan.extend
    )
    names = stage_names()
    planned = [p.stage for p in plan_stages(plan, model)]
    fresh = set(names) if plan.replace else set()
    if plan.from_stage:
        fresh |= {s for s in names if names.index(s) >= names.index(plan.from_stage)}
    ctx = PlanContext(
        store=store,
        config=config,
        palette=palette,
        run_uid="plan",
        llm=model,
        generation=build_generation(found, uids, plan.replace, plan.extend),
        chunks=file_chunks,
        fresh=frozenset(fresh),
    )
    if palette is None and found.exists and not plan.replace:
        ctx.palette = stored_palette(store, config.domain)
    held = [] if plan.replace else ctx.store.query("pipeline/chunks_of_domain", domain=ctx.domain)
    held_uids = {c["uid"] for c in held}
    writes_chunks = any(s.name == "chunks" and s.wanted(ctx) for s in planned)
    new = [c.model_dump() for c in file_chunks if c.uid not in held_uids] if writes_chunks else []
    cost = BuildCostPlan(
        domain=config.domain,
        model=model.model if model else "offline",
        chunks=len(held) + len(new),
        new_chunks=len(new),
    )
    if model is None:
        cost.notes.append("offline build: no model calls")
        return cost
    # `--extend` into a new generation: the later stages work on the new chunks only.
    basis = len(new) if ctx.generation > found.generation else cost.chunks
    seen = observed(store, model.model)
    if latency_s is not None:
        cost.latency_s, cost.latency_source = latency_s, "--latency"
    elif seen.latency_s is not None:
        cost.latency_s = seen.latency_s
        cost.latency_source = f"observed (earlier builds of {seen.label})"
    # Whether this build changes what a later stage reads before it runs: new chunks, a model
    # stage with calls, a deterministic stage it resets or whose output the graph lacks.
    changed = bool(new)
    questions: int | None = None
    for stage in planned:
        if not stage.wanted(ctx) or stage.name == "chunks":
            continue
        if stage.prompt is None:
            changed = changed or stage.name in ctx.fresh or not stage.up_to_date(ctx)
            continue
        if stage.name == "facts" or not changed:
            items = _pending(ctx, stage, new, plan.replace)
            prompts = stage.planned_prompts(ctx, items)
            calls, tokens, how = len(prompts), sum(map(count_tokens, prompts)), EXACT
        else:
            calls, per_call, how = _estimate(
                stage.name, basis, seen, questions, config.max_questions
            )
            tokens = round(calls * per_call)
        changed = changed or calls > 0
        if stage.name == "questions":
            questions = calls
        reply, source = _completion(model, seen, stage.name)
        cost.roles.append(
            RoleEstimate(
                role=stage.name,
                model=model.model,
                calls=calls,
                prompt_tokens=tokens,
                completion_tokens=calls * reply,
                completion_source=source,
                calls_source=how,
            )
        )
    price = model.client.config.price_for()
    cost.batch = model.client.config.batch  # `--batch`: the batch price
    cost.price({model.model: price})
    in_flight = model.client.config.in_flight
    # The stages run one after another; a stage's calls go `in_flight` at a time.
    cost.wall_s = sum(math.ceil(r.calls / in_flight) * cost.latency_s for r in cost.roles)
    if any(r.calls_source != EXACT for r in cost.roles):
        cost.notes.append(
            "estimated stages ask about items earlier model replies of this build make: their "
            "calls are estimated per chunk (see the calls counted column)"
        )
    return cost


def _pending(
    ctx: PlanContext, stage: Stage, new: Iterable[dict[str, Any]], replace: bool
) -> list[dict]:
    """The items the stage would ask about: its own item query, and for the facts stage the
    chunks the build's chunks stage writes first (after `--replace`, those only)."""
    if stage.name == "facts" and replace:
        return list(new)
    items = stage.pending_items(ctx, StageReport(stage=stage.name))
    if stage.name == "facts":
        seen = {c["uid"] for c in items}
        items += [c for c in new if c["uid"] not in seen]
    return items


def check_budget(cost: BuildCostPlan, model: BuildLLM | None) -> None:
    """Refuse a build whose estimated cost exceeds the builder model's --max-cost."""
    cost.refuse_over(
        model.client.config.max_cost if model else None,
        f"build of {cost.domain}",
        "",
        "build fewer chunks (`kg build ... --plan` shows the cost per stage)",
    )
