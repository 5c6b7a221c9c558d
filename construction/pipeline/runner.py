"""The pipeline runner: validates inputs before writing, walks the stage table in order (or one
stage, or from one on) with each stage's implementation chosen once (offline or LLM), keeps
per-item resume state in Neo4j, records the Run with provenance and returns the summary table's
figures."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from construction.pipeline import STAGE_TABLE
from construction.pipeline import chunks as chunk_stage
from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext, ProgressFactory, StageReport, log
from construction.pipeline.llm_route import BuildLLM
from construction.pipeline.stage import Stage, StageRun, load_stage
from kg import __version__, domains, leases
from kg.errors import InputError, Interrupted
from kg.ids import build_run_uid
from kg.palette import Palette, load_palette, stored_palette
from kg.processes import stop_signal_name
from kg.runs import RunStatus, finish_run, start_run
from kg.store import Store

if TYPE_CHECKING:
    from kg.llm.batch.driver import BatchDriver


class BuildPlan(BaseModel):
    """What one `kg build` is asked to do: the settings, the inputs and how to treat what the
    domain already holds."""

    config: BuildConfig
    chunk_paths: list[Path] = Field(default_factory=list)
    palette_path: Path | None = None
    # The stages to run (default all, each resuming its finished items).
    only: list[str] | None = None
    # Reset this stage and every later one, then run them.
    from_stage: str | None = None
    # A stage whose items failed stops the build (`partial`) unless this is set.
    allow_partial: bool = False
    replace: bool = False  # delete what the domain holds first (needs `yes`)
    yes: bool = False
    # Chunks the domain does not hold yet start a new build generation.
    extend: bool = False

    @property
    def domain(self) -> str:
        return self.config.domain


class PlannedStage(BaseModel):
    """One stage of this build with the implementation chosen for it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    stage: Stage
    run: StageRun


class LeasedBuild(BaseModel):
    """What the build found and read before its first write, under the domain's lease."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_uid: str
    generation: int = 0  # the build generation this pass writes (`kg build --extend`)
    chunks: list[chunk_stage.Chunk] = Field(default_factory=list)
    palette: Palette | None = None


class BuildResult(BaseModel):
    run: str
    domain: str
    # done, or partial: a stage had failed items and later stages did not run (the Run's
    # stored status, `kg.runs.RunStatus`).
    status: RunStatus
    summary: dict[str, int]
    stages: list[StageReport]
    seconds: float
    failed_items: int = 0
    failed_reasons: dict[str, int] = {}
    stopped_after: str | None = None  # the stage whose failures stopped the build
    allow_partial: bool = False

    def failed_items_reasons_sorted(self) -> list[tuple[str, int]]:
        return sorted(self.failed_reasons.items(), key=lambda kv: (-kv[1], kv[0]))


class StageWalk(BaseModel):
    """How the walk over the planned stages ended."""

    failed_items: int = 0
    failed_reasons: dict[str, int] = {}
    stopped_after: str | None = None


def stage_names() -> tuple[str, ...]:
    return tuple(STAGE_TABLE)


def failed_items(ctx: BuildContext, stage: Stage) -> tuple[int, dict[str, int]]:
    """Items of a stage left undone by failed or rejected model replies (a rerun retries them):
    the stage's items without a done marker, counted only when the stage rejected something
    (a rejected part of an item that was still written is not a failed item)."""
    rep = ctx.reports.get(stage.name)
    if rep is None or not rep.rejected or stage.prompt is None:
        return 0, {}
    undone = max(0, rep.items - len(ctx.done_items(stage.name)))
    reasons = {
        k.removeprefix("rejected_"): v
        for k, v in sorted(rep.counts.items())
        if k.startswith("rejected_") and v
    }
    return undone, (reasons if undone else {})


def plan_stages(plan: BuildPlan, llm: BuildLLM | None) -> list[PlannedStage]:
    """The stages this build runs, in table order, each with its implementation chosen once:
    the LLM one when there is a builder model, else the offline one."""
    names = stage_names()
    chosen = list(plan.only or names)
    if plan.from_stage:
        chosen = [s for s in chosen if names.index(s) >= names.index(plan.from_stage)]
    stages = [load_stage(n) for n in chosen]
    return [PlannedStage(stage=s, run=s.implementation(llm)) for s in stages]


def walk(ctx: BuildContext, planned: list[PlannedStage], allow_partial: bool) -> StageWalk:
    """Run the planned stages in order; a stage with failed items stops the walk before the
    next one (which would build on partial input) unless `allow_partial`."""
    out = StageWalk()
    for p in planned:
        if not p.stage.wanted(ctx):
            continue
        log.info("stage %s", p.stage.name)
        # Domain-level stages are one item; per-item stages draw their own bars.
        bar = ctx.bar(p.stage.name, 1) if p.stage.domain_level else None
        p.run(ctx)
        if bar is not None:
            bar.advance()
            bar.close()
        n, why = failed_items(ctx, p.stage)
        out.failed_items += n
        for k, v in why.items():
            out.failed_reasons[k] = out.failed_reasons.get(k, 0) + v
        if n and not allow_partial:
            out.stopped_after = p.stage.name
            break
    return out


def build_domain(
    store: Store,
    plan: BuildPlan,
    *,
    llm: BuildLLM | None = None,
    progress: ProgressFactory | None = None,
) -> BuildResult:
    """Run the build `plan` describes for one domain, with `llm` as the builder model (offline
    without one).

    A stage whose items failed ends the build `partial` before the next stage (which would
    build on partial input) unless `plan.allow_partial`; a rerun resumes the failed items.

    `plan.extend` with chunks the domain does not hold yet starts a new build generation: its
    concepts, edges, paths and questions are written beside the earlier generations' (new keys,
    new question ids), which stay as they are with the runs that reference them."""
    config = plan.config
    names = stage_names()
    for name in [plan.from_stage, *(plan.only or [])]:
        if name is not None and name not in names:
            raise InputError(f"unknown stage {name!r}; stages: {', '.join(names)}")
    if plan.from_stage and plan.only:
        # A reset invalidates every later stage, so they all have to run again.
        raise InputError(
            "--from-stage reruns every stage from the one named: do not combine "
            "it with a single stage"
        )
    # Validate every input before the first write: bad input leaves the graph as it was.
    palette = load_palette(plan.palette_path) if plan.palette_path else None
    chunk_items = (
        chunk_stage.read_chunks(
            plan.chunk_paths, config.domain, config.chunk_size, config.chunk_overlap
        )
        if plan.chunk_paths
        else []
    )
    store.ensure_schema()
    run_uid = build_run_uid(config.domain, time.time_ns())
    # One writer per domain: a second `kg build` of it is refused while this one is alive.
    with leases.hold(store, f"build:{config.domain}", run_uid, "build"):
        # Never overwrite a domain by surprise: imported questions, or chunks that change an
        # existing build, need an explicit choice (DomainConflict names them).
        found = domains.check_build(
            store,
            config.domain,
            [c.uid for c in chunk_items],
            replace=plan.replace,
            yes=plan.yes,
            extend=plan.extend,
        )
        generation = build_generation(
            found, [c.uid for c in chunk_items], plan.replace, plan.extend
        )
        if generation and plan.from_stage in ("chunks", "facts", "embeddings"):
            raise InputError(
                f"--from-stage {plan.from_stage}: domain {config.domain!r} was extended (build "
                f"generation {generation}); its earlier questions use these facts. Rerun from "
                "clusters or later, or rebuild it with --replace --yes"
            )
        if plan.replace and found.exists:
            gone = domains.delete(store, config.domain, keep_domain=True)
            log.warning(
                "--replace: deleted %d node(s) of domain %s; %d run(s) marked",
                gone["nodes_deleted"],
                config.domain,
                gone["runs_marked"],
            )
        if generation != found.generation:
            store.query(
                "pipeline/domain_set_generation", domain=config.domain, generation=generation
            )
        if chunk_items:
            domains.mark(store, [config.domain], built=True)
        leased = LeasedBuild(
            run_uid=run_uid, generation=generation, chunks=chunk_items, palette=palette
        )
        return _build_leased(store, plan, leased, llm, progress)


def build_generation(
    found: domains.DomainInfo, chunk_uids: list[str], replace: bool, extend: bool
) -> int:
    """The build generation this pass writes: a new one when `--extend` brings chunks the
    domain does not hold, else the current one (a rerun resumes it); 0 after `--replace`."""
    if replace:
        return 0
    if extend and found.exists and set(chunk_uids) - set(found.chunk_uids):
        return found.generation + 1
    return found.generation


def _build_leased(
    store: Store,
    plan: BuildPlan,
    leased: LeasedBuild,
    llm: BuildLLM | None,
    progress: ProgressFactory | None,
) -> BuildResult:
    started = time.perf_counter()
    config = plan.config
    ctx = BuildContext(
        store=store,
        config=config,
        palette=leased.palette,
        run_uid=leased.run_uid,
        llm=llm,
        progress=progress,
        generation=leased.generation,
        chunks=leased.chunks,
        chunk_source=",".join(p.name for p in plan.chunk_paths),
    )
    planned = plan_stages(plan, llm)
    stages = [p.stage.name for p in planned]
    start_run(
        store,
        leased.run_uid,
        "build",
        {
            "domain": config.domain,
            "models": [ctx.model_name],
            "roles": {"builder": ctx.model_name},
            "config": config.model_dump(mode="json"),
            "prompt_hashes": {p: BuildLLM.prompt_hash(p) for p in _all_prompts()} if llm else {},
            "version": __version__,
            "stages": stages,
            "generation": leased.generation,  # which build pass of the domain (`--extend`)
        },
    )
    status, error = RunStatus.failed, None
    walked = StageWalk()
    batches: BatchDriver | None = None
    if llm is not None and llm.client.config.batch:
        from kg.llm.batch.driver import BatchDriver

        # the domain's batches: a build killed meanwhile finds them again
        batches = BatchDriver(store, f"build:{config.domain}", [llm.client])
    try:
        if leased.palette is not None:
            store.query(
                "pipeline/domain_set_palette",
                domain=config.domain,
                palette=json.dumps(leased.palette.model_dump()["categories"], ensure_ascii=False),
                source=str(plan.palette_path),
            )
        elif "relations" in stages:
            ctx.palette = stored_palette(store, config.domain)
        if plan.from_stage:
            _reset_from(ctx, plan.from_stage)
        if batches is not None and llm is not None:
            batches.resume()
            llm.batches = batches
        walked = walk(ctx, planned, plan.allow_partial)
        if batches is not None:  # every batch read: a later build starts afresh
            batches.close_scope()
        # `partial`: closed with items left, resumable (the one run vocabulary).
        status = RunStatus.partial if walked.stopped_after else RunStatus.done
        if walked.stopped_after:
            error = (
                f"stage {walked.stopped_after}: {walked.failed_items} item(s) failed ("
                + ", ".join(f"{k} {v}" for k, v in walked.failed_reasons.items())
                + "); later stages not run"
            )
    except KeyboardInterrupt:  # SIGINT, or SIGTERM (kg.processes.stop_signals_interrupt)
        error = f"interrupted by {stop_signal_name()}"
        status = RunStatus.interrupted
    except BaseException as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
        status = RunStatus.failed
        raise
    finally:
        if batches is not None:
            batches.close()
        summary = domain_summary(store, config.domain)
        reports = list(ctx.reports.values())
        tin = sum(r.tokens_in for r in reports)
        tout = sum(r.tokens_out for r in reports)
        finish_run(
            store,
            leased.run_uid,
            status,
            {
                "tokens_in": tin,
                "tokens_out": tout,
                "error": error,
                "summary": {
                    "totals": summary,
                    "stages": [r.model_dump(mode="json") for r in reports],
                },
                "allow_partial": plan.allow_partial,
                "failed_items": walked.failed_items,
                "failed_reasons": walked.failed_reasons,
            },
        )
    if status is RunStatus.interrupted:
        raise Interrupted(
            f"build {leased.run_uid} of domain {config.domain} {error}: finished items are "
            "kept; rerun the same command to resume"
        )
    return BuildResult(
        run=leased.run_uid,
        domain=config.domain,
        status=status,
        summary={**summary, "tokens_in": tin, "tokens_out": tout},
        stages=reports,
        seconds=time.perf_counter() - started,
        failed_items=walked.failed_items,
        failed_reasons=walked.failed_reasons,
        stopped_after=walked.stopped_after,
        allow_partial=plan.allow_partial,
    )


def _all_prompts() -> list[str]:
    """Every stage's prompt, in table order: their hashes are recorded on an LLM build's Run
    (whichever stages it runs)."""
    stages = [load_stage(n) for n in stage_names()]
    return [s.prompt for s in stages if s.prompt]


def _reset_from(ctx: BuildContext, stage: str) -> None:
    names = stage_names()
    later = [s for s in names if names.index(s) >= names.index(stage)]
    for s in later:
        for query in load_stage(s).reset:
            ctx.store.query(query, domain=ctx.domain, generation=ctx.generation)
    ctx.clear_state([s for s in later if s != "chunks"])
    log.info("reset stages %s of domain %s", ", ".join(later), ctx.domain)


def domain_summary(store: Store, domain: str) -> dict[str, int]:
    rows = store.query("pipeline/domain_summary", domain=domain)
    return {k: int(v or 0) for k, v in rows[0].items()} if rows else {}
