"""`kg build DOMAIN --chunks FILE ...` (the whole construction pipeline) and
`kg build STAGE DOMAIN ...` (one stage). Offline unless `--model` names a builder model."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import Field
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from construction.pipeline import STAGES as STAGE_NAMES
from kg.cli.console import console, err_console, fail, open_store
from kg.cli.options import Change, LLMEndpoint, OptionGroup, Spend, grouped
from kg.runs import RunStatus

if TYPE_CHECKING:
    from construction.pipeline.config import BuildConfig
    from construction.pipeline.llm_route import BuildLLM
    from construction.pipeline.runner import BuildPlan, BuildResult

SUMMARY_ROWS = [
    ("chunks", "chunks"),
    ("facts", "facts"),
    ("merged duplicates", "merged_duplicates"),
    ("concepts", "concepts"),
    ("outliers (unclustered facts)", "outliers"),
    ("candidate pairs", "candidate_pairs"),
    ("edges", "edges"),
    ("multi-relation pairs", "multi_relation_pairs"),
    ("paths", "paths"),
    ("perspectives", "perspectives"),
    ("questions", "questions"),
    ("evidence links", "evidence"),
    ("tokens in", "tokens_in"),
    ("tokens out", "tokens_out"),
]


class _RateColumn(ProgressColumn):
    """Items per second of a stage."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:6.1f}/s" if speed else "      -/s", style="cyan")


class _Bar:
    def __init__(self, progress: Progress, label: str, total: int) -> None:
        self.progress = progress
        self.task = progress.add_task(label, total=max(total, 0))

    def advance(self, n: int = 1) -> None:
        self.progress.advance(self.task, n)

    def close(self) -> None:
        self.progress.update(self.task, completed=self.progress.tasks[self.task].total)


def _summary_table(result: BuildResult) -> Table:
    table = Table(title=f"build of {result.domain} ({result.status}, {result.seconds:.1f} s)")
    table.add_column("graph")
    table.add_column("total", justify="right")
    for label, key in SUMMARY_ROWS:
        table.add_row(label, str(result.summary.get(key, 0)))
    return table


def _stage_table(result: BuildResult) -> Table:
    table = Table(title="stages (this run)")
    for col in ("stage", "items", "resumed", "written", "rejected", "skipped", "seconds"):
        table.add_column(col, justify="left" if col == "stage" else "right")
    for s in result.stages:
        table.add_row(
            s.stage,
            *map(str, (s.items, s.resumed, s.written, s.rejected, s.skipped)),
            f"{s.seconds:.2f}",
        )
    return table


class BuildSettings(OptionGroup):
    """`kg build`'s settings of the pipeline (`BuildConfig`), one option each."""

    allow_new_relations: Annotated[
        bool,
        typer.Option(help="accept model labels outside the palette (recorded with descriptions)"),
    ] = False
    chunk_size: Annotated[int, typer.Option(help="characters per chunk for text files")] = 1000
    chunk_overlap: Annotated[int, typer.Option(help="overlap between text chunks")] = 150
    embedding_model: Annotated[str, typer.Option()] = "all-MiniLM-L6-v2"
    duplicate_cosine: Annotated[float, typer.Option(help="merge facts at this cosine")] = 0.95
    umap: Annotated[bool, typer.Option(help="reduce the embeddings before HDBSCAN")] = Field(
        True, serialization_alias="use_umap"
    )
    reducer: Annotated[
        str,
        typer.Option(
            help="umap (the published pipeline's; JIT "
            "cached on disk), spectral (~1 s, fewer concepts on a "
            "textbook) or auto (spectral below 300 facts)"
        ),
    ] = "auto"
    min_cluster_size: Annotated[
        int, typer.Option(help="HDBSCAN (scaled down for small corpora)")
    ] = 10
    min_pair_score: Annotated[float, typer.Option(help="keep concept pairs scoring this")] = 4.0
    top_k: Annotated[
        int,
        typer.Option(
            help="keep each concept's top k pairs (0 = all pairs scoring at least --min-pair-score)"
        ),
    ] = Field(3, serialization_alias="top_k_pairs")
    cluster_selection: Annotated[
        str | None,
        typer.Option(
            help="HDBSCAN cluster selection: leaf (fine-grained) or eom (default: eom "
            "after the spectral reduction, leaf after UMAP)"
        ),
    ] = None
    max_hops: Annotated[int, typer.Option(help="longest reasoning path (1-3)")] = 3
    one_hop_min: Annotated[
        int | None,
        typer.Option(
            help="parallel relations a 1-hop pair needs (default 3 with a model, 2 offline)"
        ),
    ] = Field(None, serialization_alias="one_hop_min_relations")
    multi_hop_min: Annotated[
        int | None,
        typer.Option(
            help="fewest relation combinations of "
            "a multi-hop concept sequence (default 4 "
            "with a model, 2 offline)"
        ),
    ] = Field(None, serialization_alias="multi_hop_min_combinations")
    multi_hop_max: Annotated[
        int, typer.Option(help="most relation combinations of a multi-hop concept sequence")
    ] = Field(14, serialization_alias="multi_hop_max_combinations")
    max_questions: Annotated[
        int,
        typer.Option(
            help="most questions per build (per hop in the paper's proportions, round-robin "
            "over endpoint pairs); 0 = one per perspective"
        ),
    ] = 333
    evidence: Annotated[int, typer.Option(help="focused evidence facts per question (offline)")] = (
        Field(4, serialization_alias="evidence_per_question")
    )

    def config(self, domain: str, concurrency: int) -> BuildConfig:
        """The build's `BuildConfig`; a bad value is an error naming the setting."""
        from pydantic import ValidationError

        from construction.pipeline.config import BuildConfig

        try:
            return BuildConfig(
                domain=domain,
                concurrency=concurrency,
                # Fields are named as BuildConfig's (serialization aliases); 0 means "no cap".
                **self.model_dump(by_alias=True)
                | {"top_k_pairs": self.top_k or None, "max_questions": self.max_questions or None},
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            fail(f"build setting {'.'.join(map(str, err['loc']))}: {err['msg']}")


class Builder(Spend):
    """`kg build`'s model (offline without one), what it may spend and how long it may reply."""

    model: Annotated[
        str | None,
        typer.Option(help="builder model (provider/name); offline heuristics when omitted"),
    ] = None
    max_cost: Annotated[
        float | None,
        typer.Option(
            help="refuse, before any call, a build whose plan costs more; stop once this many "
            "dollars are spent"
        ),
    ] = None
    max_tokens: Annotated[int | None, typer.Option(help="most tokens per reply")] = None


class BuildRun(OptionGroup):
    """`kg build`: which stages run, over what the domain holds, and how the result is shown."""

    from_stage: Annotated[str | None, typer.Option(help="rerun from this stage on")] = None
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="delete what the domain holds "
            "(imported or built questions) and build it anew; "
            "needs --yes",
        ),
    ] = False
    yes: Annotated[bool, typer.Option("--yes", help="confirm --replace")] = False
    extend: Annotated[
        bool,
        typer.Option(
            "--extend",
            help="build more chunks into an existing domain as new questions with new ids; "
            "its questions, their ids and the runs that reference them stay",
        ),
    ] = False
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="run later stages even when a stage had failed items (recorded on the Run)",
        ),
    ] = False
    plan: Annotated[
        bool,
        typer.Option(
            "--plan",
            help="show what the build would ask the model (calls, tokens, cost, wall time per "
            "stage) and stop: nothing is called, nothing is written",
        ),
    ] = False
    latency: Annotated[
        float | None,
        typer.Option(help="assumed seconds per model call for the plan's wall time (default 2)"),
    ] = None
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="log each stage")] = False


def register(app: typer.Typer) -> None:
    """Attach this area's commands to the main app."""

    @app.command("build")
    @grouped
    def build(
        target: str = typer.Argument(
            ...,
            help="DOMAIN for a whole build, or a STAGE name "
            f"({', '.join(STAGE_NAMES)}) followed by DOMAIN",
        ),
        domain_arg: str | None = typer.Argument(
            None, metavar="[DOMAIN]", help="the domain when TARGET is a stage"
        ),
        chunks: list[Path] = typer.Option(  # noqa: B006 - typer needs a list default
            [], "--chunks", help="chunk JSON ({id, subject, source, text}) or text files"
        ),
        palette: Path | None = typer.Option(
            None,
            help="relation palette JSON (published format); stored on the domain for later runs",
        ),
        builder: Builder = Builder.options(),
        llm: LLMEndpoint = LLMEndpoint.options(concurrency=Change(4, "model calls in flight")),
        settings: BuildSettings = BuildSettings.options(),
        run: BuildRun = BuildRun.options(),
    ) -> None:
        """Build a perspective benchmark for DOMAIN from text, into the graph (resumable)."""
        from construction.pipeline.runner import BuildPlan, build_domain

        from_stage = run.from_stage
        if target in STAGE_NAMES:
            if not domain_arg:
                fail(f"`kg build {target} DOMAIN`: name the domain to run stage {target} on")
            only, domain = [target], domain_arg
        else:
            if domain_arg:
                fail(f"{target!r} is not a stage ({', '.join(STAGE_NAMES)})")
            only, domain = None, target
        if from_stage and only:
            fail(
                f"use `kg build {domain} --from-stage {from_stage}` (reruns that stage and "
                f"every later one) or `kg build {target} {domain}` (one stage, resuming)"
            )
        if from_stage and from_stage not in STAGE_NAMES:
            fail(f"--from-stage {from_stage!r}: stages are {', '.join(STAGE_NAMES)}")
        if only == ["chunks"] and not chunks:
            fail("stage chunks needs --chunks FILE")
        logging.basicConfig(
            level=logging.INFO if run.verbose else logging.WARNING,
            format="%(levelname)s %(name)s: %(message)s",
        )
        if builder.batch and not builder.model:
            fail("--batch sends the builder model's requests: it needs --model")
        cfg = settings.config(domain, llm.concurrency)
        llm_route = None
        if builder.model:
            from construction.pipeline.llm_route import make_build_llm

            config = llm.config(
                builder.model, "builder", **builder.model_dump(exclude={"model"}, exclude_none=True)
            )
            if run.plan:  # no response cache file is opened: the plan asks nothing
                config = config.model_copy(update={"cache": False})
            llm_route = make_build_llm(config=config)
            if (
                llm_route is not None and llm_route.client.config.endpoints
            ):  # a fleet: items for every slot
                cfg = cfg.model_copy(update={"concurrency": llm_route.client.config.in_flight})
        from kg.llm.fleet import fleet_stats, stats_line

        as_json = run.as_json
        plan = BuildPlan(
            config=cfg,
            chunk_paths=list(chunks),
            palette_path=palette,
            from_stage=from_stage,
            only=only,
            allow_partial=run.allow_partial,
            replace=run.replace,
            yes=run.yes,
            extend=run.extend,
        )
        if run.plan or llm_route is not None:
            _plan_first(plan, llm_route, run)
        with (
            open_store() as store,
            Progress(
                TextColumn("{task.description:<11}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                _RateColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=as_json,
                disable=as_json,
            ) as progress,
        ):
            result = build_domain(
                store,
                plan,
                llm=llm_route,
                progress=lambda label, total: _Bar(progress, label, total),
            )
            report = None
            if result.status is RunStatus.done and (
                only is None or only == ["questions"] or only == ["evidence"]
            ):
                # The build's own verdict: the same checks as `kg validate DOMAIN`.
                from construction.quality.validate import DomainNotFound, validate_domain

                try:
                    report = validate_domain(store, domain)
                except DomainNotFound:
                    report = None
        if as_json:
            body = result.model_dump(mode="json")
            body["validation"] = report.model_dump() if report else None
            body["endpoints"] = fleet_stats([llm_route.client]) if llm_route is not None else []
            console.print_json(json.dumps(body))
        else:
            console.print(_stage_table(result))
            console.print(_summary_table(result))
            for s in result.stages:
                for note in s.notes:
                    style = "bold yellow" if note.startswith("WARNING") else "dim"
                    console.print(f"[{style}]{s.stage}: {note}[/]", highlight=False)
            for row in fleet_stats([llm_route.client]) if llm_route is not None else []:
                console.print(f"  {stats_line(row)}", highlight=False)  # a fleet, per endpoint
            if report is not None:
                from kg.cli.validate import print_report

                print_report(report)
                if report.status == "fail":
                    console.print(
                        f"[bold red]validation failed[/]: see `kg validate {domain}`",
                        highlight=False,
                    )
        _report_failures(result)


def _plan_first(plan: BuildPlan, llm: BuildLLM | None, run: BuildRun) -> None:
    """`--plan`: show the build's cost plan and stop. An LLM build: its one-line summary, and a
    plan over `--max-cost` refused before any call (and before any write)."""
    from construction.pipeline.cost_plan import check_budget, plan_build

    with open_store() as store:
        cost = plan_build(store, plan, llm, run.latency)
    if run.plan:
        if run.as_json:
            print(cost.model_dump_json(indent=2))
        else:
            for text in cost.report():
                console.print(text, highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(0)
    # Beside `--json` output the line goes to stderr.
    (err_console if run.as_json else console).print(cost.line(), highlight=False)
    check_budget(cost, llm)


def _report_failures(result: BuildResult) -> None:
    """A build with failed items says so and exits non-zero: its graph is not a clean build's."""
    if not result.failed_items:
        return
    why = ", ".join(f"{k} {v}" for k, v in result.failed_items_reasons_sorted())
    if result.status is RunStatus.partial:
        fail(
            f"build of {result.domain} is partial: {result.failed_items} item(s) of stage "
            f"{result.stopped_after} failed ({why}); later stages did not run. Rerun the same "
            f"`kg build {result.domain} ...` to retry the failed items (finished ones are "
            "kept), or pass --allow-partial to build on the partial input",
            code=2,
        )
    # On stderr, never after `--json` output on stdout; the exit code says it too (2): the
    # graph is not a clean build's.
    err_console.print(
        f"[yellow]warning:[/] {result.failed_items} item(s) failed ({why}); later "
        "stages ran on partial input (--allow-partial, recorded on the Run)",
        highlight=False,
    )
    raise typer.Exit(2)
