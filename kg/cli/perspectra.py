"""`kg perspectra ...`: import PERSPECTRA data, match, expand, build tasks, evaluate, report.

Heavy libraries (numpy/torch/sklearn/matplotlib) are imported inside the commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from kg.cli.console import console, fail, open_store
from kg.cli.options import DROP, Generation, LLMEndpoint, grouped

if TYPE_CHECKING:
    from construction.perspectra.rows import ImportRows
    from kg.llm import LLMClient
    from kg.store import Store

app = typer.Typer(
    help="PERSPECTRA: debate topics, opinions, comments, expansions and the three "
    "pluralism tasks (T1 counting, T2 matching, T3 polarity).",
    no_args_is_help=True,
)
TASK_HELP = "t1 (opinion counting), t2 (opinion matching), t3 (polarity), or all"
MODEL_HELP = "provider/model or bare name (OpenAI-compatible)"
# One OptionInfo, shared by the commands that read a task set (typer copies nothing from it).
TASK_SET_OPTION: Any = typer.Option(
    None,
    "--task-set",
    "--build",
    help="Task set id (one task; default: the task's only task set)",
)


def _tasks(task: str) -> list[str]:
    from kg.task_items import TASKS

    if task == "all":
        return list(TASKS)
    if task not in TASKS:
        fail(f"unknown task {task!r}: {TASK_HELP}")
    return [task]


def _print_pairs(title: str, pairs: Sequence[tuple[str, object]]) -> None:
    t = Table(title=title, show_header=False)
    for k, v in pairs:
        t.add_row(k, f"{v:,}" if isinstance(v, int) else str(v))
    console.print(t)


def _write_and_count(store: Store, rows: ImportRows, title: str) -> None:
    from construction.perspectra.graph_writer import graph_counts, write_import

    _print_pairs(f"{title}: in the file", list(rows.counts().items()))
    write_import(store, rows)
    _print_pairs("PERSPECTRA in the graph", list(graph_counts(store).items()))


@app.command("import")
def import_release(
    path: Path = typer.Argument(
        ..., exists=True, dir_okay=False, help="Perspectra.json (release file)"
    ),
) -> None:
    """Import the PERSPECTRA release file (validated; idempotent; one transaction)."""
    from construction.perspectra.release_import import release_rows

    with open_store() as store:
        _write_and_count(store, release_rows(path), path.name)


@app.command("import-kialo")
def import_kialo(
    path: Path = typer.Argument(
        ..., exists=True, dir_okay=False, help="JSON list or JSONL of {topic, pros, cons}"
    ),
) -> None:
    """Import Kialo-style topics with pro and con opinion strings."""
    from construction.perspectra.kialo_import import kialo_rows

    with open_store() as store:
        _write_and_count(store, kialo_rows(path), path.name)


@app.command("import-reddit")
def import_reddit(
    path: Path = typer.Argument(..., exists=True, dir_okay=False, help="Reddit comments JSONL"),
    topic: str = typer.Option(None, help="Topic for lines without a `topic` field"),
    threads: int = typer.Option(20, help="Threads kept per topic (dump order)"),
    comments: int = typer.Option(100, help="Comments kept per thread (by score)"),
    min_words: int = typer.Option(5, help="Drop comments with fewer words"),
) -> None:
    """Import Reddit comments as candidates of existing topics (budgets + counted filters)."""
    from construction.perspectra.graph_writer import missing_topics
    from construction.perspectra.reddit_import import RedditBudget, reddit_rows

    budget = RedditBudget(
        threads_per_topic=threads, comments_per_thread=comments, min_words=min_words
    )
    with open_store() as store:
        rows, report = reddit_rows(path, topic, budget)
        wanted = sorted({t for _, t in rows.candidates})
        if missing := missing_topics(store, wanted):
            names = [t for t in report.per_topic if _uid(t) in missing]
            fail(
                f"{path}: {len(missing)} topic(s) not in the graph (import them first, "
                f"nothing written): {names[:5]}"
            )
        _print_pairs("Reddit pipeline", report.as_rows())
        _write_and_count(store, rows, path.name)


def _uid(topic: str) -> str:
    from kg.ids import topic_uid

    return topic_uid(topic)


@app.command()
def match(
    topic: str = typer.Option(None, help="Only this topic (exact text)"),
    k: int = typer.Option(5, help="Comments kept per opinion"),
    force: bool = typer.Option(False, help="Re-match opinions that already have matches"),
    embedding_model: str = typer.Option(
        None, help="sentence-transformers model (default from settings: the offline MiniLM)"
    ),
) -> None:
    """Embed opinions and candidate comments; store the top-k by cosine as MATCHED."""
    from construction.perspectra.matching import match_topics
    from kg.embeddings import get_embedder

    emb = get_embedder(embedding_model)
    with open_store() as store:
        r = match_topics(store, emb.encode, emb.model_name, k=k, force=force, topic=topic)
    _print_pairs(
        "Matching",
        [
            ("topics with candidates", r.topics),
            ("opinions matched", r.opinions_matched),
            ("opinions skipped (already matched)", r.opinions_skipped),
            (f"opinions with fewer than {k} candidates", r.opinions_short),
            ("MATCHED edges written", r.edges),
        ],
    )


@app.command()
@grouped
def expand(
    model: str = typer.Option(..., help=MODEL_HELP),
    llm: LLMEndpoint = LLMEndpoint.options(),
    topic: str = typer.Option(None, help="Only this topic (exact text)"),
    limit: int = typer.Option(None, help="At most this many expansions this time"),
) -> None:
    """Write one LLM expansion per (topic, opinion, matched comment) not expanded yet."""
    from construction.perspectra.expansion import expand as run_expand
    from kg.llm import LLMClient

    client = LLMClient(llm.config(model, "builder"))
    with open_store() as store:
        r = run_expand(store, client, topic=topic, limit=limit)
    _print_pairs(
        "Expansions",
        [
            ("pending slots", r.pending),
            ("written", r.written),
            ("from cache", r.cached),
            ("empty replies", r.empty),
            ("failed calls", r.failed),
        ],
    )
    _print_endpoints(client)
    for e in r.errors[:3]:
        console.print(f"[yellow]failed:[/] {e}")
    if r.failed or r.empty:
        console.print("Run the same command again to retry the missing slots.")


@app.command("build-tasks")
def build_tasks(
    task: str = typer.Option("all", help=TASK_HELP),
    n: int = typer.Option(500, help="Items per task"),
    seed: int = typer.Option(13),
    options: int = typer.Option(4, help="T2: options per item"),
    bundle: int = typer.Option(1, help="T3: expansions per item (one side)"),
    k_min: int = typer.Option(2, help="T1: fewest opinions"),
    k_max: int = typer.Option(6, help="T1: most opinions"),
    per_opinion_max: int = typer.Option(3, help="T1: most expansions per opinion"),
) -> None:
    """Build seeded task sets from the graph and store their items as TaskItem nodes."""
    from construction.perspectra.tasks.builders import build_items
    from construction.perspectra.tasks.store import write_items
    from kg.queries.perspectra_corpus import load_corpus
    from kg.task_items import T1Config, T2Config, T3Config, TaskSetSpec

    with open_store() as store:
        corpus = load_corpus(store)
        if not corpus.topics:
            fail("no opinions with expansions in the graph: import data first")
        for t in _tasks(task):
            spec = TaskSetSpec(
                task=t,
                n=n,
                seed=seed,
                t2=T2Config(options=options),
                t3=T3Config(bundle=bundle),
                t1=T1Config(k_min=k_min, k_max=k_max, per_opinion_max=per_opinion_max),
            )
            items = build_items(corpus, spec)
            write_items(store, items)
            console.print(f"{t}: {len(items)} items, task set [bold]{items[0].task_set}[/]")


@app.command("export-tasks")
def export_tasks(
    task: str = typer.Option("all", help=TASK_HELP),
    task_set: str = TASK_SET_OPTION,
    out: Path = typer.Option(Path("out/perspectra"), help="Directory for <task set>.jsonl"),
) -> None:
    """Export stored task items to JSONL (one file per task set)."""
    from kg.queries.task_items import export_jsonl, load_items, resolve_task_set
    from kg.safe_paths import safe_file

    out.mkdir(parents=True, exist_ok=True)
    with open_store() as store:
        for t in _tasks(task):
            b = resolve_task_set(store, t, task_set if task != "all" else None)
            path = safe_file(out, b, ".jsonl")  # task set ids are user-given names
            console.print(f"{t}: {export_jsonl(load_items(store, b), path)} items -> {path}")


def _print_scores(title: str, summary: dict[str, float]) -> None:
    _print_pairs(title, [(k, v if isinstance(v, int) else f"{v:.4f}") for k, v in summary.items()])


@app.command("eval")
@grouped
def evaluate(
    model: str = typer.Option(..., help=MODEL_HELP),
    task: str = typer.Option(..., help=TASK_HELP),
    task_set: str = TASK_SET_OPTION,
    llm: LLMEndpoint = LLMEndpoint.options(),
    gen: Generation = Generation.options(temperature=DROP, reasoning_effort=DROP),
    limit: int = typer.Option(None, help="Only the first N items"),
) -> None:
    """Ask a model the task items; replies parsed strictly; a Run with metrics in the graph."""
    from evaluation.perspectra.llm_eval import evaluate as run_eval
    from kg.llm import LLMClient
    from kg.queries.task_items import load_items, resolve_task_set

    client = LLMClient(llm.config(model, "responder", **gen.settings()))
    with open_store() as store:
        for t in _tasks(task):
            b = resolve_task_set(store, t, task_set if task != "all" else None)
            items = load_items(store, b)[:limit]
            out = run_eval(store, client, items, t, b)
            console.print(
                f"{t}: run [bold]{out.spec.uid}[/] asked {out.asked}, resumed "
                f"{out.resumed}, failed calls {out.failed}"
            )
            _print_scores(f"{t} {model}", out.scores.summary)
    _print_endpoints(client)


def _print_endpoints(client: LLMClient) -> None:
    """A fleet: what each endpoint did (nothing for one endpoint)."""
    from kg.llm.fleet import fleet_stats, stats_line

    for row in fleet_stats([client]):
        console.print(f"  {stats_line(row)}", highlight=False)


@app.command()
def baselines(
    task: str = typer.Option("all", help=TASK_HELP),
    task_set: str = TASK_SET_OPTION,
    embedding_model: str = typer.Option(None),
) -> None:
    """Run the offline baselines (no LLM) and store each as a Run."""
    from construction.perspectra.tasks.builders import build_items
    from evaluation.perspectra.baseline_eval import run_baseline
    from kg.embeddings import get_embedder
    from kg.queries.perspectra_corpus import load_corpus
    from kg.queries.task_items import load_items, resolve_task_set

    emb = get_embedder(embedding_model)
    with open_store() as store:
        corpus = load_corpus(store)
        for t in _tasks(task):
            b = resolve_task_set(store, t, task_set if task != "all" else None)
            out = run_baseline(
                store,
                t,
                b,
                load_items(store, b),
                corpus,
                emb.encode,
                emb.model_name,
                make_items=build_items,
            )
            console.print(f"{t}: {out.spec.model} run [bold]{out.spec.uid}[/] {out.config}")
            _print_scores(f"{t} {out.spec.model}", out.scores.summary)


@app.command()
def report(
    run: list[str] = typer.Option(None, help="Run uid(s); default every PERSPECTRA run"),
    out: Path = typer.Option(Path("out/perspectra"), help="Output directory"),
    plot: bool = typer.Option(True, help="Also write perspectra_accuracy.png"),
    html: Path = typer.Option(
        None,
        "--html",
        help="also write one self-contained HTML report "
        "with a per-item view (input, gold, reply, parse) to this file",
    ),
) -> None:
    """Tables with bootstrap CIs (CSV/JSON/Markdown) and a plot of every PERSPECTRA run."""
    from evaluation.perspectra.report import run_rows, tables, write_report

    with open_store() as store:
        runs = [r["run"] for r in store.read("perspectra/runs", uids=run or None)]
        if not runs:
            fail("no PERSPECTRA runs in the graph: run `kg perspectra baselines` or `eval`")
        missing = sorted(set(run or []) - {r["uid"] for r in runs})
        if missing:
            fail(f"unknown PERSPECTRA run(s): {', '.join(missing)}")
        rows = run_rows(store, runs)
        payload = None
        if html is not None:
            from evaluation.reporting.html_report import perspectra_payload

            payload = perspectra_payload(store, runs, plots=plot)
    for table in tables(rows).values():
        console.print(table.to_markdown(), markup=False, highlight=False)
    for p in write_report(out, rows, plot=plot):
        console.print(f"wrote {p}")
    if payload is not None:
        from evaluation.reporting.html_report import write_html

        try:
            write_html(html, payload, title="PERSPECTRA runs")
        except OSError as exc:
            fail(f"{html}: cannot write the HTML report: {exc}")
        console.print(f"wrote {html}", highlight=False)


@app.command()
def status() -> None:
    """PERSPECTRA counts and the stored task sets."""
    from construction.perspectra.graph_writer import graph_counts
    from kg.queries.task_items import list_task_sets

    with open_store() as store:
        _print_pairs("PERSPECTRA in the graph", list(graph_counts(store).items()))
        for s in list_task_sets(store):
            console.print(f"{s['task']}: {s['task_set']} ({s['items']} items, seed {s['seed']})")


@app.command()
def wipe(yes: bool = typer.Option(False, "--yes", help="Confirm")) -> None:
    """Delete every PERSPECTRA node, run and answer (other data is left alone)."""
    from construction.perspectra.graph_writer import delete_perspectra, graph_counts

    if not yes:
        fail("this deletes all PERSPECTRA data; pass --yes to confirm")
    with open_store() as store:
        delete_perspectra(store)
        _print_pairs("PERSPECTRA in the graph", list(graph_counts(store).items()))


def register(main: typer.Typer) -> None:
    """Attach this area's commands to the main app."""
    main.add_typer(app, name="perspectra")
