"""The pipeline runner: validates inputs before writing, runs the stages in order (or one, or
from one on), keeps per-item resume state in Neo4j, records the Run with provenance and returns
the summary table's figures."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from construction.pipeline import STAGES
from construction.pipeline import chunks as chunk_stage
from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext, ProgressFactory, StageReport, log
from construction.pipeline.llm_route import BuildLLM
from kg import __version__, domains, leases
from kg.errors import InputError, Interrupted
from kg.ids import build_run_uid
from kg.palette import Palette, load_palette, stored_palette
from kg.processes import stop_signal_name
from kg.runs import RunStatus, finish_run, start_run
from kg.store import Store

# What `--from-stage X` removes before rerunning X and everything after it.
_RESET: dict[str, list[str]] = {
    "facts": ["pipeline/delete_facts", "pipeline/delete_concepts"],
    "embeddings": ["pipeline/clear_embeddings", "pipeline/delete_concepts"],
    "clusters": ["pipeline/delete_concepts"],
    "concepts": [],
    "pairs": ["pipeline/delete_candidates", "pipeline/delete_relations", "pipeline/delete_paths"],
    "relations": ["pipeline/delete_relations", "pipeline/delete_paths"],
    "paths": ["pipeline/delete_paths"],
    "questions": ["pipeline/delete_questions"],
    "evidence": ["pipeline/delete_evidence"],
}
# Stages that ask the model once per item and mark each item done when its reply is written.
_PER_ITEM_MODEL_STAGES = ("facts", "concepts", "relations", "questions", "evidence")
PROMPTS = ("facts", "summary", "relations", "question", "evidence")


class BuildResult(BaseModel):
    run: str
    domain: str
    status: str  # done | incomplete (a stage had failed items; later stages did not run)
    summary: dict[str, int]
    stages: list[dict[str, Any]]
    seconds: float
    failed_items: int = 0
    failed_reasons: dict[str, int] = {}
    stopped_after: str | None = None  # the stage whose failures stopped the build
    allow_partial: bool = False

    def failed_items_reasons_sorted(self) -> list[tuple[str, int]]:
        return sorted(self.failed_reasons.items(), key=lambda kv: (-kv[1], kv[0]))


def failed_items(ctx: BuildContext, name: str) -> tuple[int, dict[str, int]]:
    """Items of a stage left undone by failed or rejected model replies (a rerun retries them):
    the stage's items without a done marker, counted only when the stage rejected something
    (a rejected part of an item that was still written is not a failed item)."""
    rep = ctx.reports.get(name)
    if rep is None or not rep.rejected or name not in _PER_ITEM_MODEL_STAGES:
        return 0, {}
    undone = max(0, rep.items - len(ctx.done_items(name)))
    reasons = {
        k.removeprefix("rejected_"): v
        for k, v in sorted(rep.counts.items())
        if k.startswith("rejected_") and v
    }
    return undone, (reasons if undone else {})


def _stage_runner(name: str) -> Callable[[BuildContext], StageReport]:
    from construction.pipeline import (
        clustering,
        concepts,
        embeddings,
        evidence,
        facts,
        pairs,
        paths,
        questions,
        relations,
    )

    return {
        "facts": facts.run,
        "embeddings": embeddings.run,
        "clusters": clustering.run,
        "concepts": concepts.run,
        "pairs": pairs.run,
        "relations": relations.run,
        "paths": paths.run,
        "questions": questions.run,
        "evidence": evidence.run,
    }[name]


def write_chunks(
    ctx: BuildContext, chunk_paths: list[Path], items: list[chunk_stage.Chunk]
) -> StageReport:
    """Stage 1: the validated chunks, all in one transaction."""
    with ctx.stage("chunks") as rep:
        done = ctx.done_items("chunks")
        rep.items, rep.resumed = len(items), sum(1 for c in items if c.uid in done)
        prov = ctx.provenance("chunks", source=",".join(p.name for p in chunk_paths))
        # A chunk is new in the generation that first wrote it (`--extend`).
        rows = [{**c.model_dump(), "provenance": prov, "generation": ctx.generation} for c in items]
        ctx.write_items(
            "chunks", [("pipeline/write_chunks", {"rows": rows})], [c.uid for c in items]
        )
        rep.written = len(rows) - rep.resumed
        return rep


def build_domain(
    store: Store,
    config: BuildConfig,
    *,
    chunk_paths: list[Path] | None = None,
    palette_path: Path | None = None,
    llm: BuildLLM | None = None,
    from_stage: str | None = None,
    only: list[str] | None = None,
    progress: ProgressFactory | None = None,
    allow_partial: bool = False,
    replace: bool = False,
    yes: bool = False,
    extend: bool = False,
) -> BuildResult:
    """Run the build for one domain. `only` = the stages to run (default all, each resuming
    its finished items); `from_stage` resets that stage and every later one, then runs them.

    A stage whose items failed ends the build `incomplete` before the next stage (which would
    build on partial input) unless `allow_partial`; a rerun resumes the failed items.

    `extend` with chunks the domain does not hold yet starts a new build generation: its
    concepts, edges, paths and questions are written beside the earlier generations' (new keys,
    new question ids), which stay as they are with the runs that reference them."""
    for name in [from_stage, *(only or [])]:
        if name is not None and name not in STAGES:
            raise InputError(f"unknown stage {name!r}; stages: {', '.join(STAGES)}")
    if from_stage and only:
        # A reset invalidates every later stage, so they all have to run again.
        raise InputError(
            "--from-stage reruns every stage from the one named: do not combine "
            "it with a single stage"
        )
    # Validate every input before the first write: bad input leaves the graph as it was.
    palette = load_palette(palette_path) if palette_path else None
    chunk_items = (
        chunk_stage.read_chunks(chunk_paths, config.domain, config.chunk_size, config.chunk_overlap)
        if chunk_paths
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
            replace=replace,
            yes=yes,
            extend=extend,
        )
        generation = _generation(found, [c.uid for c in chunk_items], replace, extend)
        if generation and from_stage in ("chunks", "facts", "embeddings"):
            raise InputError(
                f"--from-stage {from_stage}: domain {config.domain!r} was extended (build "
                f"generation {generation}); its earlier questions use these facts. Rerun from "
                "clusters or later, or rebuild it with --replace --yes"
            )
        if replace and found.exists:
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
        return _build_leased(
            store,
            config,
            run_uid,
            chunk_paths,
            chunk_items,
            palette,
            palette_path,
            llm,
            from_stage,
            only,
            progress,
            allow_partial,
            generation,
        )


def _generation(
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
    config: BuildConfig,
    run_uid: str,
    chunk_paths: list[Path] | None,
    chunk_items: list[chunk_stage.Chunk],
    palette: Palette | None,
    palette_path: Path | None,
    llm: BuildLLM | None,
    from_stage: str | None,
    only: list[str] | None,
    progress: ProgressFactory | None,
    allow_partial: bool,
    generation: int = 0,
) -> BuildResult:
    started = time.perf_counter()
    ctx = BuildContext(
        store=store,
        config=config,
        palette=palette,
        run_uid=run_uid,
        llm=llm,
        progress=progress,
        generation=generation,
    )
    stages = list(only or STAGES)
    if from_stage:
        stages = [s for s in stages if STAGES.index(s) >= STAGES.index(from_stage)]
    hashes = {p: BuildLLM.prompt_hash(p) for p in PROMPTS} if llm else {}
    start_run(
        store,
        run_uid,
        "build",
        {
            "domain": config.domain,
            "models": [ctx.model_name],
            "roles": {"builder": ctx.model_name},
            "config": config.model_dump(mode="json"),
            "prompt_hashes": hashes,
            "version": __version__,
            "stages": stages,
            "generation": generation,  # which build pass of the domain (`--extend` adds one)
        },
    )
    status, error = RunStatus.failed, None
    n_failed: int = 0
    reasons: dict[str, int] = {}
    stopped_after: str | None = None
    try:
        if palette is not None:
            store.query(
                "pipeline/domain_set_palette",
                domain=config.domain,
                palette=json.dumps(palette.model_dump()["categories"], ensure_ascii=False),
                source=str(palette_path),
            )
        elif "relations" in stages:
            ctx.palette = stored_palette(store, config.domain)
        if from_stage:
            _reset_from(ctx, from_stage)
        if chunk_paths and "chunks" in stages:
            write_chunks(ctx, chunk_paths, chunk_items)
        for name in stages:
            if name == "chunks":
                continue
            log.info("stage %s", name)
            # Domain-level stages are one item; per-item stages draw their own bars.
            bar = ctx.bar(name, 1) if name in ("clusters", "pairs", "paths") else None
            _stage_runner(name)(ctx)
            if bar is not None:
                bar.advance()
                bar.close()
            n, why = failed_items(ctx, name)
            n_failed += n
            for k, v in why.items():
                reasons[k] = reasons.get(k, 0) + v
            if n and not allow_partial:
                stopped_after = name
                break
        # Stored as `partial` (closed with items left, resumable: the one run vocabulary); the
        # build result and the CLI call it incomplete: later stages did not run.
        status = RunStatus.partial if stopped_after else RunStatus.done
        if stopped_after:
            error = (
                f"stage {stopped_after}: {n_failed} item(s) failed ("
                + ", ".join(f"{k} {v}" for k, v in reasons.items())
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
        summary = domain_summary(store, config.domain)
        tin = sum(r.tokens_in for r in ctx.reports.values())
        tout = sum(r.tokens_out for r in ctx.reports.values())
        finish_run(
            store,
            run_uid,
            status,
            {
                "tokens_in": tin,
                "tokens_out": tout,
                "error": error,
                "summary": {"totals": summary, "stages": _stage_dicts(ctx)},
                "allow_partial": allow_partial,
                "failed_items": n_failed,
                "failed_reasons": reasons,
            },
        )
    if status is RunStatus.interrupted:
        raise Interrupted(
            f"build {run_uid} of domain {config.domain} {error}: finished items are kept; "
            "rerun the same command to resume"
        )
    return BuildResult(
        run=run_uid,
        domain=config.domain,
        status="incomplete" if stopped_after else status.value,
        summary={**summary, "tokens_in": tin, "tokens_out": tout},
        stages=_stage_dicts(ctx),
        seconds=time.perf_counter() - started,
        failed_items=n_failed,
        failed_reasons=reasons,
        stopped_after=stopped_after,
        allow_partial=allow_partial,
    )


def _reset_from(ctx: BuildContext, stage: str) -> None:
    later = [s for s in STAGES if STAGES.index(s) >= STAGES.index(stage)]
    for s in later:
        for query in _RESET.get(s, []):
            ctx.store.query(query, domain=ctx.domain, generation=ctx.generation)
    ctx.clear_state([s for s in later if s != "chunks"])
    log.info("reset stages %s of domain %s", ", ".join(later), ctx.domain)


def _stage_dicts(ctx: BuildContext) -> list[dict[str, Any]]:
    return [
        {
            "stage": r.stage,
            "items": r.items,
            "resumed": r.resumed,
            "written": r.written,
            "rejected": r.rejected,
            "skipped": r.skipped,
            "seconds": round(r.seconds, 3),
            "cpu_seconds": round(r.cpu_seconds, 3),
            "tokens_in": r.tokens_in,
            "tokens_out": r.tokens_out,
            "counts": r.counts,
            "notes": r.notes,
        }
        for r in ctx.reports.values()
    ]


def domain_summary(store: Store, domain: str) -> dict[str, int]:
    rows = store.query("pipeline/domain_summary", domain=domain)
    return {k: int(v or 0) for k, v in rows[0].items()} if rows else {}
