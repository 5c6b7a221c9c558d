"""`kg build DOMAIN --chunks FILE ...` (the whole construction pipeline) and
`kg build STAGE DOMAIN ...` (one stage). Offline unless `--model` names a builder model."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
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
from kg.runs import RunStatus

if TYPE_CHECKING:
    from construction.pipeline.config import BuildConfig
    from construction.pipeline.runner import BuildResult

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
        counts = (s.items, s.resumed, s.written, s.rejected, s.skipped)
        table.add_row(s.stage, *map(str, counts), f"{s.seconds:.2f}")
    return table


# `kg build` options that set a BuildConfig field of another name; the others share theirs.
_FIELD_OF = {
    "umap": "use_umap",
    "top_k": "top_k_pairs",
    "one_hop_min": "one_hop_min_relations",
    "multi_hop_min": "multi_hop_min_combinations",
    "multi_hop_max": "multi_hop_max_combinations",
    "evidence": "evidence_per_question",
}


def build_config(domain: str, options: dict[str, Any]) -> BuildConfig:
    """The build settings from `kg build`'s options (by name); 0 means none for `--top-k` and
    `--max-questions`."""
    from construction.pipeline.config import BuildConfig

    fields = BuildConfig.model_fields
    values = {_FIELD_OF.get(k, k): v for k, v in options.items()}
    values = {k: v for k, v in values.items() if k in fields and k != "domain"}
    for k in ("top_k_pairs", "max_questions"):
        values[k] = values[k] or None
    return BuildConfig(domain=domain, **values)


def register(app: typer.Typer) -> None:
    """Attach this area's commands to the main app."""

    @app.command("build")
    def build(
        cli: typer.Context,
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
        model: str | None = typer.Option(
            None, help="builder model (provider/name); offline heuristics when omitted"
        ),
        base_url: str | None = typer.Option(None, help="OpenAI-compatible endpoint"),
        api_key_env: str = typer.Option("OPENAI_API_KEY", help="env var holding the key"),
        no_cache: bool = typer.Option(False, "--no-cache", help="bypass the response cache"),
        from_stage: str | None = typer.Option(None, help="rerun from this stage on"),
        allow_new_relations: bool = typer.Option(
            False, help="accept model labels outside the palette (recorded with descriptions)"
        ),
        chunk_size: int = typer.Option(1000, help="characters per chunk for text files"),
        chunk_overlap: int = typer.Option(150, help="overlap between text chunks"),
        embedding_model: str = typer.Option("all-MiniLM-L6-v2"),
        duplicate_cosine: float = typer.Option(0.95, help="merge facts at this cosine"),
        umap: bool = typer.Option(True, help="reduce the embeddings before HDBSCAN"),
        reducer: str = typer.Option(
            "auto",
            help="umap (the published pipeline's; JIT "
            "cached on disk), spectral (~1 s, fewer concepts on a "
            "textbook) or auto (spectral below 300 facts)",
        ),
        min_cluster_size: int = typer.Option(10, help="HDBSCAN (scaled down for small corpora)"),
        min_pair_score: float = typer.Option(4.0, help="keep concept pairs scoring this"),
        top_k: int = typer.Option(
            3,
            help="keep each concept's top k pairs (0 = all pairs "
            "scoring at least --min-pair-score)",
        ),
        cluster_selection: str | None = typer.Option(
            None,
            help="HDBSCAN cluster selection: leaf (fine-grained) or eom (default: eom "
            "after the spectral reduction, leaf after UMAP)",
        ),
        max_hops: int = typer.Option(3, help="longest reasoning path (1-3)"),
        one_hop_min: int | None = typer.Option(
            None, help="parallel relations a 1-hop pair needs (default 3 with a model, 2 offline)"
        ),
        multi_hop_min: int | None = typer.Option(
            None,
            help="fewest relation combinations of "
            "a multi-hop concept sequence (default 4 "
            "with a model, 2 offline)",
        ),
        multi_hop_max: int = typer.Option(
            14, help="most relation combinations of a multi-hop concept sequence"
        ),
        max_questions: int = typer.Option(
            333,
            help="most questions per build (per hop in the paper's proportions, round-robin "
            "over endpoint pairs); 0 = one per perspective",
        ),
        evidence: int = typer.Option(4, help="focused evidence facts per question (offline)"),
        concurrency: int = typer.Option(4, help="model calls in flight"),
        replace: bool = typer.Option(
            False,
            "--replace",
            help="delete what the domain holds "
            "(imported or built questions) and build it anew; "
            "needs --yes",
        ),
        yes: bool = typer.Option(False, "--yes", help="confirm --replace"),
        extend: bool = typer.Option(
            False,
            "--extend",
            help="build more chunks into an existing domain as new questions with new ids; "
            "its questions, their ids and the runs that reference them stay",
        ),
        allow_partial: bool = typer.Option(
            False,
            "--allow-partial",
            help="run later stages even when a stage had failed items (recorded on the Run)",
        ),
        as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
        verbose: bool = typer.Option(False, "-v", "--verbose", help="log each stage"),
    ) -> None:
        """Build a perspective benchmark for DOMAIN from text, into the graph (resumable)."""
        from pydantic import ValidationError

        from construction.pipeline.runner import BuildPlan, build_domain

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
            level=logging.INFO if verbose else logging.WARNING,
            format="%(levelname)s %(name)s: %(message)s",
        )
        try:
            cfg = build_config(domain, cli.params)
        except ValidationError as exc:
            err = exc.errors()[0]
            fail(f"build setting {'.'.join(map(str, err['loc']))}: {err['msg']}")
        llm = None
        if model:
            from construction.pipeline.llm_route import make_build_llm
            from kg.llm import llm_config

            llm = make_build_llm(
                config=llm_config(
                    model,
                    role="builder",
                    base_url=base_url,
                    api_key_env=api_key_env,
                    no_cache=no_cache,
                    concurrency=concurrency,
                )
            )
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
            plan = BuildPlan(
                config=cfg,
                chunk_paths=list(chunks),
                palette_path=palette,
                from_stage=from_stage,
                only=only,
                allow_partial=allow_partial,
                replace=replace,
                yes=yes,
                extend=extend,
            )
            result = build_domain(
                store, plan, llm=llm, progress=lambda label, total: _Bar(progress, label, total)
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
            console.print_json(json.dumps(body))
        else:
            console.print(_stage_table(result))
            console.print(_summary_table(result))
            for s in result.stages:
                for note in s.notes:
                    style = "bold yellow" if note.startswith("WARNING") else "dim"
                    console.print(f"[{style}]{s.stage}: {note}[/]", highlight=False)
            if report is not None:
                from kg.cli.validate import print_report

                print_report(report)
                if report.status == "fail":
                    console.print(
                        f"[bold red]validation failed[/]: see `kg validate {domain}`",
                        highlight=False,
                    )
        _report_failures(result)


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
