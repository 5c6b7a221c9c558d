"""`kg eval run|judge|import-answers|report|compare|agreement|runs`: evaluate models on the
stored questions."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kg.cli.console import console, fail, open_store
from kg.cli.options import (
    DROP,
    Change,
    Generation,
    JudgeChoice,
    LLMEndpoint,
    OptionGroup,
    Output,
    Scope,
    Scoring,
    Selection,
    Spend,
    choice,
    grouped,
)

if TYPE_CHECKING:
    from evaluation.runs.spec import RunSpec


eval_app = typer.Typer(
    help="Ask models the stored questions, judge, score and report.", no_args_is_help=True
)


def _execute(spec: RunSpec) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from evaluation.runs.runner import execute
    from kg.runs import RunStatus

    with (
        open_store() as store,
        Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as bar,
    ):
        task = bar.add_task("questions", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        from kg.store import StoreError

        try:
            summary = execute(
                store,
                spec,
                progress,
                announce=lambda plan: console.print(plan.line(), highlight=False),
            )
        except StoreError as exc:  # the run's lease is held elsewhere, or Neo4j was lost
            fail(str(exc), code=3)
    console.print(
        f"run [bold]{summary.run_id}[/]: {summary.status} — {summary.completed} "
        f"question(s) judged now, {summary.done_before} before, {summary.failed} "
        f"failed, {summary.skipped_invalid} skipped as invalid; "
        f"{summary.calls} model call(s), {summary.cached_calls} from cache; "
        f"{summary.elapsed_s:.1f} s"
    )
    if summary.truncated:
        console.print(
            f"  [yellow]![/] {summary.truncated} model repl(ies) cut at max_tokens "
            "(finish_reason length): raise --max-tokens for complete answers",
            highlight=False,
        )
    if summary.batches:
        console.print(
            f"  {summary.batches} provider batch(es) of {summary.batch_lines} request(s) "
            "submitted (--batch)",
            highlight=False,
        )
    if summary.judge_self_agreement is not None:
        console.print(f"  {summary.judge_self_agreement.line()}", highlight=False)
    from kg.llm.fleet import stats_line

    for row in summary.endpoints:  # a fleet: what each endpoint did
        console.print(f"  {stats_line(row)}", highlight=False)
    for err in summary.errors[:10]:
        console.print(f"  [yellow]![/] {err}", highlight=False)
    console.print(f"report: kg eval report {summary.run_id}")
    if summary.status != RunStatus.done:
        raise typer.Exit(2)


class Answering(OptionGroup):
    """`kg eval run`: who answers, under which setting, into which run."""

    responder: Annotated[
        str,
        typer.Option(
            help="llm (needs --model) or an offline baseline: cover-all, target-only, empty"
        ),
    ] = "llm"
    model: Annotated[str | None, typer.Option(help="responder model, e.g. openai/gpt-4o")] = None
    setting: Annotated[str, typer.Option(help="base, oracle, noisy, rag-bm25, rag-dense")] = (
        "oracle"
    )
    strategy: Annotated[str, typer.Option(help="plain, one-shot, negative")] = "plain"
    noise: Annotated[int, typer.Option(help="Noisy: extra facts from the question's own graph")] = 5
    top_k: Annotated[
        int | None, typer.Option(help="RAG: facts retrieved (default: Noisy's count)")
    ] = None
    run_id: Annotated[str | None, typer.Option(help="run id; an existing id resumes that run")] = (
        None
    )
    skip_invalid: Annotated[bool, typer.Option(help="skip unscorable questions (counted)")] = False

    def run_fields(self) -> dict[str, Any]:
        """The `RunSpec` fields this group sets (`--setting`, `--strategy` checked)."""
        from evaluation.models import Setting, Strategy

        return self.model_dump(exclude={"model"}) | {
            "setting": choice(Setting, self.setting, "--setting"),
            "strategy": choice(Strategy, self.strategy, "--strategy"),
        }


class Robustness(OptionGroup):
    """`kg eval run`: the robustness profile's extra answers (FRS, C3, PROOF)."""

    samples: Annotated[
        int,
        typer.Option(
            help="answers per question, each with its own seed and token logprobs (FRS: "
            "`kg eval report --top-k-percent`); use with --temperature"
        ),
    ] = 1
    contexts: Annotated[
        int,
        typer.Option(
            help="C3: also answer each question under C seeded, content-neutral context "
            "perturbations (domain facts or a neutral framing put before it); the report adds "
            "the consistency tables"
        ),
    ] = 0
    formulations: Annotated[
        str | None,
        typer.Option(
            help="PROOF: also ask these formulations, comma-separated or 'all': original, "
            "neutral-1, neutral-2, adversarial, hint (see `kg eval profile`)"
        ),
    ] = None
    decoders: Annotated[
        str | None,
        typer.Option(
            help="PROOF: decoder grid on a seeded subset, points separated by ';', e.g. "
            "'temperature=0.2;temperature=1.0,top_p=0.9;seed=7'"
        ),
    ] = None
    subset_percent: Annotated[
        float,
        typer.Option(help="PROOF: percent of the selected questions the decoder grid runs on"),
    ] = 10.0

    def run_fields(self) -> dict[str, Any]:
        """The `RunSpec` fields this group sets, checked: bad names or grid points are an
        `InputError` (reported by KGGroup)."""
        from evaluation.profiles.decoders import check_subset, parse_grid
        from evaluation.profiles.formulations import parse_names

        if self.samples < 1:
            fail(f"--samples: must be at least 1 (got {self.samples})")
        if self.contexts < 0:
            fail(f"--contexts: must be at least 0 (got {self.contexts})")
        check_subset(self.subset_percent)
        return self.model_dump() | {
            "formulations": parse_names(self.formulations) or None,
            "decoders": parse_grid(self.decoders) or None,
        }


@eval_app.command("run")
@grouped
def run_cmd(
    answering: Answering = Answering.options(),
    llm: LLMEndpoint = LLMEndpoint.options(
        base_url=Change(help="OpenAI-compatible endpoint of the responder; repeat it for a fleet"),
        api_key_env=Change(help="env var with the responder key"),
        concurrency=Change(help="requests in flight per role"),
    ),
    judging: JudgeChoice = JudgeChoice.options(),
    scoring: Scoring = Scoring.options(),
    sel: Selection = Selection.options(),
    spend: Spend = Spend.options(),
    gen: Generation = Generation.options(),
    robust: Robustness = Robustness.options(),
) -> None:
    """Answer the selected questions with a responder, judge every answer, store the run.

    Without --domain and --origin, only the imported (published) domains are evaluated when
    the graph holds one: drafts built beside them need --domain NAME or --origin built.
    The run's cost plan (`kg eval plan`) is printed first; a plan over --max-cost is refused."""
    _execute(_run_spec(answering, llm, judging, scoring, sel, spend, gen, robust))


def _run_spec(
    a: Answering,
    llm: LLMEndpoint,
    judging: JudgeChoice,
    scoring: Scoring,
    sel: Selection,
    spend: Spend,
    gen: Generation,
    robust: Robustness,
) -> RunSpec:
    """The `RunSpec` of `kg eval run` (and of `kg eval plan`, which takes the same options)."""
    from evaluation.responders.responder import OFFLINE_RESPONDERS
    from evaluation.runs.spec import RunSpec

    judging.check()
    profile = robust.run_fields()
    r_llm = None
    if a.responder == "llm":
        if not a.model:
            fail(
                "--responder llm needs --model (or use an offline baseline: "
                "--responder cover-all|target-only|empty)"
            )
        r_llm = llm.config(a.model, "responder", **spend.model_dump(), **gen.settings())
    elif a.responder not in OFFLINE_RESPONDERS:
        fail(f"unknown responder {a.responder!r}: llm, {', '.join(OFFLINE_RESPONDERS)}")
    return RunSpec(
        kind="eval",
        responder_llm=r_llm,
        **a.run_fields(),
        **judging.run_fields(llm, spend),
        **scoring.run_fields(),
        **profile,
        **sel.run_fields(_eval_domains(sel)),
    )


class Planning(Answering):
    """`kg eval plan`: what `kg eval run` takes, and how the plan is shown."""

    json_out: Annotated[bool, typer.Option("--json", help="print the plan as JSON")] = False
    latency: Annotated[
        float | None,
        typer.Option(help="assumed seconds per model call for the wall-time estimate (default 2)"),
    ] = None

    def run_fields(self) -> dict[str, Any]:
        return Answering.model_validate(
            self.model_dump(exclude={"json_out", "latency"})
        ).run_fields()


@eval_app.command("plan")
@grouped
def plan_cmd(
    answering: Planning = Planning.options(),
    llm: LLMEndpoint = LLMEndpoint.options(
        base_url=Change(help="OpenAI-compatible endpoint of the responder; repeat it for a fleet"),
        api_key_env=Change(help="env var with the responder key"),
        concurrency=Change(help="requests in flight per role"),
    ),
    judging: JudgeChoice = JudgeChoice.options(),
    scoring: Scoring = Scoring.options(),
    sel: Selection = Selection.options(),
    spend: Spend = Spend.options(),
    gen: Generation = Generation.options(),
    robust: Robustness = Robustness.options(),
) -> None:
    """What `kg eval run` with these options would ask and cost, before anything is asked.

    Model calls, prompt and completion tokens and cost per role, and the wall time. Nothing
    is called and nothing is written; prompt tokens are counted on the prompts the run sends."""
    from evaluation.runs.runner import cost_plan, plan_run

    spec = _run_spec(answering, llm, judging, scoring, sel, spend, gen, robust)
    spec = spec.model_copy(  # no response cache file is opened (not part of the run's id)
        update={
            k: cfg.model_copy(update={"cache": False})
            for k, cfg in (("responder_llm", spec.responder_llm), ("judge_llm", spec.judge_llm))
            if cfg is not None
        }
    )
    with open_store() as store:
        plan = cost_plan(plan_run(store, spec, writes=False), answering.latency)
    if answering.json_out:
        print(plan.model_dump_json(indent=2))
        return
    for text in plan.report():
        console.print(text, highlight=False, markup=False, soft_wrap=True)


def _eval_domains(sel: Scope) -> list[str] | None:
    """`kg eval run`'s selection: the named domains/origin, else the imported domains when the
    graph holds one (said on screen, with the drafts left out), else every domain."""
    from kg import domains as kg_domains

    with open_store() as store:
        if sel.domain or sel.origin is not None:
            return sel.domains(store)
        default = kg_domains.default_eval_origin(store)
        if default is None:
            return None
        every = kg_domains.all_domains(store)
    names = [d.name for d in every if d.has_origin(default)]
    drafts = [d.name for d in every if d.exists and not d.has_origin(default)]
    if drafts:
        console.print(
            f"evaluating the imported domain(s) {', '.join(names)}; drafts left out: "
            f"{', '.join(drafts)} (name them with --domain NAME or --origin built)",
            highlight=False,
        )
    return names


@eval_app.command("judge")
@grouped
def judge_cmd(
    run: str = typer.Option(..., "--run", help="the run whose stored answers are judged"),
    judging: JudgeChoice = JudgeChoice.options(
        judge=Change(default=...), judge_base_url=DROP, judge_fleet=DROP, judge_api_key_env=DROP
    ),
    llm: LLMEndpoint = LLMEndpoint.options(
        base_url=Change(help="OpenAI-compatible endpoint of the judge; repeat it for a fleet")
    ),
    run_id: str = typer.Option(None, help="id of the judge run (resumes when it exists)"),
    scoring: Scoring = Scoring.options(),
    sel: Selection = Selection.options(
        limit=Change(help="the first N answers (by question domain, id)"),
        hop=Change(help="only answers to these hops (repeatable)"),
    ),
    spend: Spend = Spend.options(),
) -> None:
    """Judge a run's stored answers again with another judge (the responder is not asked)."""
    from evaluation.runs.spec import RunSpec

    judging.check()
    spec = RunSpec(
        kind="judge",
        run_id=run_id,
        source_run=run,
        **judging.run_fields(llm, spend),
        **scoring.run_fields(),
        **sel.run_fields(_scope(sel)),
    )
    _execute(spec)


@eval_app.command("import-answers")
@grouped
def import_answers_cmd(
    file: Path = typer.Argument(
        ...,
        help="JSON lines: question_id, answer, optional domain, "
        "model, prompt_tokens, completion_tokens",
    ),
    run_id: str = typer.Option(..., "--run-id", help="id of the run that holds the answers"),
    scope: Scope = Scope.options(),
) -> None:
    """Store answers made by another harness as a run, to judge (`kg eval judge`) and report."""
    from evaluation.runs.answer_import import import_answers
    from evaluation.runs.questions import load_questions

    if not file.is_file():
        fail(f"{file}: no such file")
    with open_store() as store:  # a bad line (AnswerFileError) is reported by KGGroup
        questions, _ = load_questions(store, domains=scope.domains(store), skip_invalid=True)
        summary = import_answers(store, file, run_id, questions)
    what = "stored" if summary.new_run else "already stored (nothing changed)"
    console.print(
        f"run [bold]{summary.run_id}[/]: {summary.answers} answer(s) {what}; judge "
        f"them: kg eval judge --run {summary.run_id} --judge edge-evidence"
    )


def _scope(scope: Scope) -> list[str] | None:
    with open_store() as store:
        return scope.domains(store)


def _print_tables(tables: Iterable[Any]) -> None:
    for t in tables:
        console.print(t.to_markdown(), highlight=False, markup=False, soft_wrap=True)


@eval_app.command("report")
@grouped
def report_cmd(
    runs: list[str] = typer.Argument(..., help="run ids"),
    output: Output = Output.options(
        out=Change(help="write CSV/JSON/Markdown tables and PNG plots here")
    ),
    plots: bool = typer.Option(True, help="PNG plots (with --out)"),
    html: Path = typer.Option(
        None,
        "--html",
        help="also write one self-contained HTML report with a per-question explorer to this file",
    ),
    top_k_percent: float = typer.Option(
        None,
        help="FRS: aggregate over the K% most confident samples per question, K in (0, 100] "
        "(default 50 for runs with --samples > 1)",
    ),
) -> None:
    """The paper-layout table of the runs and the plots first, then per-hop, overall,
    per-domain and per-theme-category tables with bootstrap 95% CIs.

    Runs with --samples > 1 (or with --top-k-percent) also get the FRS aggregation: all
    samples, first sample, top-K% most confident samples per question."""
    from evaluation.profiles.frs import check_top_k
    from evaluation.reporting.report import build_report

    if top_k_percent is not None:
        check_top_k(top_k_percent)  # before opening the database
    with open_store() as store:
        rep = build_report(store, runs, output.out, output.chosen(), plots, top_k_percent)
        if html is not None:
            _write_html(store, runs, html)
    if rep.lead is not None:
        print_paper_table(rep.lead)
    _print_tables(rep.tables.values())
    if output.out is not None:
        (output.out / "report.md").write_text(rep.markdown(), encoding="utf-8")
        console.print(f"wrote {len(rep.files) + 1} file(s) to {output.out}")
    if html is not None:
        console.print(f"wrote {html}", highlight=False)


def print_paper_table(table: Any, with_ci: bool = False) -> None:
    """The paper-layout table folded for the terminal: one block per column group."""
    from rich import box
    from rich.table import Table

    console.print(table.title, highlight=False, markup=False)
    for group, head, body in table.terminal_blocks(with_ci):
        t = Table(title=group or None, box=box.SIMPLE_HEAD, title_justify="left")
        for i, col in enumerate(head):
            t.add_column(col, justify="left" if i < 2 else "right", no_wrap=i < 2)
        for row in body:
            t.add_row(*row)
        console.print(t)
    console.print("* best, + second best (bold and underlined in the written files)")


@eval_app.command("table")
def table_cmd(
    runs: list[str] = typer.Argument(..., help="run ids (one row each)"),
    layout: str = typer.Option(
        "paper",
        help="paper (Table 2: model x setting by hop), strategies (Table 3), noisy (Table 5), "
        "rag (Table 7)",
    ),
    out: Path = typer.Option(None, help="write the table here as Markdown, CSV and LaTeX"),
    name: str = typer.Option(None, help="file name without suffix (default table_<layout>)"),
    ci: bool = typer.Option(False, "--ci", help="bootstrap 95% CIs beside the means"),
) -> None:
    """Several runs in one table laid out as the paper's result tables, best and second best
    marked as the paper marks them; the numbers are the per-run reports'."""
    from evaluation.reporting.paper_tables import Layout, paper_table

    chosen = choice(Layout, layout, "--layout")
    with open_store() as store:
        table = paper_table(store, runs, chosen)
    print_paper_table(table, ci)
    if out is not None:
        files = table.write(out, name or f"table_{chosen.value}", ci)
        console.print(f"wrote {', '.join(str(f) for f in files)}", highlight=False)


def _write_html(store: Any, runs: list[str], path: Path) -> Path:
    from evaluation.reporting.html_report import eval_payload, write_html

    try:
        return write_html(path, eval_payload(store, runs), title=f"Evaluation: {', '.join(runs)}")
    except OSError as exc:
        fail(f"{path}: cannot write the HTML report: {exc}")


@eval_app.command("profile")
@grouped
def profile_cmd(
    run: str = typer.Argument(..., help="run id"),
    output: Output = Output.options(
        out=Change(help="write the tables (CSV/JSON/Markdown) and PNG plots here")
    ),
    plots: bool = typer.Option(True, help="PNG plots (with --out)"),
    top_k_percent: float = typer.Option(
        None, help="FRS: K of the top-K% aggregation, K in (0, 100] (default 50)"
    ),
) -> None:
    """Robustness profile of one run: FRS over samples, C3 consistency over contexts, PAS per
    formulation (broken aligned answers, hint following) and per decoder, with spreads per
    domain and hop."""
    from evaluation.profiles.frs import check_top_k
    from evaluation.profiles.report import build_profile

    if top_k_percent is not None:
        check_top_k(top_k_percent)
    with open_store() as store:
        rep = build_profile(store, run, output.out, output.chosen(), plots, top_k_percent)
    _print_tables(rep.tables.values())
    if output.out is not None:
        (output.out / "profile.md").write_text(rep.markdown(), encoding="utf-8")
        console.print(f"wrote {len(rep.files) + 1} file(s) to {output.out}")


@eval_app.command("view")
def view_cmd(
    runs: list[str] = typer.Argument(..., help="run ids (the first two side by side)"),
) -> None:
    """Write the HTML report of the runs to a temporary file and print its path."""
    import os
    import tempfile

    from kg.errors import KGError

    fd, name = tempfile.mkstemp(prefix="kg-eval-", suffix=".html")
    os.close(fd)
    with open_store() as store:
        try:
            path = _write_html(store, runs, Path(name))
        except KGError:
            Path(name).unlink(missing_ok=True)  # no empty file left behind; KGGroup reports
            raise
    typer.echo(str(path))


@eval_app.command("compare")
@grouped
def compare_cmd(
    run_a: str = typer.Argument(...),
    run_b: str = typer.Argument(...),
    output: Output = Output.options(),
    top_k_percent: float = typer.Option(
        None, help="FRS: K of the top-K% aggregation, K in (0, 100] (default 50 for sampled runs)"
    ),
) -> None:
    """Paired bootstrap of B - A on the questions both runs judged.

    Sampled runs (or --top-k-percent) are also compared under each FRS aggregation: all
    samples, first sample, top-K% most confident samples per question."""
    from evaluation.profiles.frs import check_top_k
    from evaluation.reporting.report import compare_runs, compare_runs_frs

    if top_k_percent is not None:
        check_top_k(top_k_percent)
    with open_store() as store:
        table = compare_runs(store, run_a, run_b)
        frs = compare_runs_frs(store, run_a, run_b, top_k_percent)
    _print_tables([table] + ([frs] if frs is not None else []))
    _export(output, [(table, f"compare_{run_a}_{run_b}"), (frs, f"compare_frs_{run_a}_{run_b}")])


@eval_app.command("agreement")
@grouped
def agreement_cmd(
    run_1: str = typer.Argument(...),
    run_2: str = typer.Argument(...),
    output: Output = Output.options(),
) -> None:
    """Two judges on the same answers: percent agreement, Cohen's kappa, confusion matrix."""
    from evaluation.reporting.report import judge_agreement

    with open_store() as store:
        summary, confusion = judge_agreement(store, run_1, run_2)
    _print_tables([summary, confusion])
    _export(
        output, [(summary, f"agreement_{run_1}_{run_2}"), (confusion, f"confusion_{run_1}_{run_2}")]
    )


def _export(output: Output, tables: list[tuple[Any, str]]) -> None:
    """Write each table (None: left out) under its name in `--out`, when given."""
    from evaluation.reporting import export_table

    if output.out is None:
        return
    for table, name in tables:
        if table is not None:
            export_table(table, output.out, name, output.chosen())


@eval_app.command("runs")
def runs_cmd(as_json: bool = typer.Option(False, "--json", help="machine-readable output")) -> None:
    """List the runs stored in the graph."""
    from rich.table import Table

    from evaluation.runs.record import TABLE
    from evaluation.runs.store import list_runs

    with open_store() as store:
        records = list_runs(store)
    if as_json:
        typer.echo(json.dumps([r.listing() for r in records], indent=2, default=str))
        return
    if not records:
        console.print("no runs yet: `kg eval run --responder cover-all --setting oracle`")
        return
    t = Table(*TABLE)
    for col in t.columns[1:]:  # fold, never cut, in an 80-column terminal
        col.overflow = "fold"
    t.columns[0].no_wrap = True
    for r in records:
        t.add_row(*(cell(r) for cell in TABLE.values()))
    console.print(t)


def register(app: typer.Typer) -> None:
    """Attach this area's commands to the main app."""
    app.add_typer(eval_app, name="eval")
