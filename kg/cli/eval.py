"""`kg eval run|judge|import-answers|report|compare|agreement|runs`: evaluate models on the
stored questions."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

import typer

from kg.cli.console import console, fail, open_store
from kg.cli.judge_options import (
    check_judge_options,
    judge_granularity_option,
    judge_votes_option,
)
from kg.cli.scopes import DOMAINS_OPTION, ORIGIN_OPTION, selected
from kg.domains import Origin

E = TypeVar("E", bound=Enum)

eval_app = typer.Typer(
    help="Ask models the stored questions, judge, score and report.", no_args_is_help=True
)


def _choice(enum: type[E], value: str, option: str) -> E:
    """An enum option value, or an `InputError` listing the choices."""
    from kg.errors import InputError

    try:
        return enum(value)
    except ValueError:
        raise InputError(
            f"{option} {value!r}: choose one of {', '.join(str(m.value) for m in enum)}"
        ) from None


def _execute(spec) -> None:
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
            summary = execute(store, spec, progress)
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
    if summary.judge_self_agreement is not None:
        console.print(f"  {summary.judge_self_agreement.line()}", highlight=False)
    for err in summary.errors[:10]:
        console.print(f"  [yellow]![/] {err}", highlight=False)
    console.print(f"report: kg eval report {summary.run_id}")
    if summary.status != RunStatus.done:
        raise typer.Exit(2)


@eval_app.command("run")
def run_cmd(
    responder: str = typer.Option(
        "llm", help="llm (needs --model) or an offline baseline: cover-all, target-only, empty"
    ),
    model: str = typer.Option(None, help="responder model, e.g. openai/gpt-4o"),
    base_url: str = typer.Option(None, help="OpenAI-compatible endpoint of the responder"),
    judge: str = typer.Option(
        "edge-evidence",
        help="offline judge 'edge-evidence' (default), "
        "'embedding' (baseline) or a judge model such as openai/gpt-4o",
    ),
    judge_base_url: str = typer.Option(None, help="endpoint of the judge (default: --base-url)"),
    judge_votes: int = judge_votes_option(),
    judge_granularity: str = judge_granularity_option(),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="env var with the responder key"),
    judge_api_key_env: str = typer.Option(None, help="env var with the judge key"),
    setting: str = typer.Option("oracle", help="base, oracle, noisy, rag-bm25, rag-dense"),
    strategy: str = typer.Option("plain", help="plain, one-shot, negative"),
    gt: str = typer.Option("evidence", "--gt", help="faithfulness ground truth: evidence, full"),
    domain: list[str] = DOMAINS_OPTION,
    origin: Origin = ORIGIN_OPTION,
    hop: list[int] = typer.Option(None, help="only these hops (repeatable)"),
    limit: int = typer.Option(None, help="first N questions (by domain, id)"),
    run_id: str = typer.Option(None, help="run id; an existing id resumes that run"),
    concurrency: int = typer.Option(8, help="requests in flight per role"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not use the response cache"),
    max_cost: float = typer.Option(None, help="stop once this many dollars are spent"),
    prices: Path = typer.Option(None, help="JSON price table {model: {input_per_mtok, ...}}"),
    temperature: float = typer.Option(None),
    max_tokens: int = typer.Option(None),
    reasoning_effort: str = typer.Option(None, help="minimal, low, medium, high"),
    timeout: float = typer.Option(None, help="seconds per request"),
    noise: int = typer.Option(5, help="Noisy: extra facts from the question's own graph"),
    top_k: int = typer.Option(None, help="RAG: facts retrieved (default: Noisy's count)"),
    seed: int = typer.Option(0),
    relevancy_n: int = typer.Option(3, help="questions regenerated for relevancy"),
    path_threshold: float = typer.Option(0.8, help="embedding judge: edge cosine threshold"),
    claim_threshold: float = typer.Option(0.7, help="embedding judge: claim cosine threshold"),
    skip_invalid: bool = typer.Option(False, help="skip unscorable questions (counted)"),
    samples: int = typer.Option(
        1,
        help="answers per question, each with its own seed and token logprobs (FRS: "
        "`kg eval report --top-k-percent`); use with --temperature",
    ),
    contexts: int = typer.Option(
        0,
        help="C3: also answer each question under C seeded, content-neutral context "
        "perturbations (domain facts or a neutral framing put before it); the report adds "
        "the consistency tables",
    ),
    formulations: str = typer.Option(
        None,
        help="PROOF: also ask these formulations, comma-separated or 'all': original, "
        "neutral-1, neutral-2, adversarial, hint (see `kg eval profile`)",
    ),
    decoders: str = typer.Option(
        None,
        help="PROOF: decoder grid on a seeded subset, points separated by ';', e.g. "
        "'temperature=0.2;temperature=1.0,top_p=0.9;seed=7'",
    ),
    subset_percent: float = typer.Option(
        10.0, help="PROOF: percent of the selected questions the decoder grid runs on"
    ),
) -> None:
    """Answer the selected questions with a responder, judge every answer, store the run.

    Without --domain and --origin, only the imported (published) domains are evaluated when
    the graph holds one: drafts built beside them need --domain NAME or --origin built."""
    from evaluation.judges import registry
    from evaluation.models import GroundTruth, Setting, Strategy
    from evaluation.responders.responder import OFFLINE_RESPONDERS
    from evaluation.runs.spec import RunSpec
    from kg.llm import llm_config

    if samples < 1:
        fail(f"--samples: must be at least 1 (got {samples})")
    check_judge_options(judge, judge_votes, judge_granularity, registry.is_offline(judge))
    if contexts < 0:
        fail(f"--contexts: must be at least 0 (got {contexts})")
    from evaluation.profiles.decoders import check_subset, parse_grid
    from evaluation.profiles.formulations import parse_names

    forms = parse_names(formulations) or None  # bad names / points: InputError (KGGroup)
    grid = parse_grid(decoders) or None
    check_subset(subset_percent)
    common: dict[str, Any] = {
        "no_cache": no_cache,
        "max_cost": max_cost,
        "prices": prices,
        "concurrency": concurrency,
        "timeout_s": timeout,
    }
    r_llm = None
    if responder == "llm":
        if not model:
            fail(
                "--responder llm needs --model (or use an offline baseline: "
                "--responder cover-all|target-only|empty)"
            )
        r_llm = llm_config(
            model,
            base_url=base_url,
            role="responder",
            api_key_env=api_key_env,
            temperature=temperature,
            max_tokens=max_tokens,
            reasoning_effort=reasoning_effort,
            **common,
        )
    elif responder not in OFFLINE_RESPONDERS:
        fail(f"unknown responder {responder!r}: llm, {', '.join(OFFLINE_RESPONDERS)}")
    j_llm = None
    if not registry.is_offline(judge):
        j_llm = llm_config(
            judge,
            base_url=judge_base_url or base_url,
            role="judge",
            api_key_env=judge_api_key_env or api_key_env,
            **common,
        )
    spec = RunSpec(
        kind="eval",
        run_id=run_id,
        responder=responder,
        responder_llm=r_llm,
        judge=registry.spec_name(judge),
        judge_llm=j_llm,
        judge_votes=judge_votes,
        judge_granularity=judge_granularity,
        setting=_choice(Setting, setting, "--setting"),
        strategy=_choice(Strategy, strategy, "--strategy"),
        gt=_choice(GroundTruth, gt, "--gt"),
        noise=noise,
        top_k=top_k,
        seed=seed,
        relevancy_n=relevancy_n,
        path_threshold=path_threshold,
        claim_threshold=claim_threshold,
        domains=_eval_domains(domain, origin),
        hops=hop or None,
        limit=limit,
        skip_invalid=skip_invalid,
        samples=samples,
        contexts=contexts,
        formulations=forms,
        decoders=grid,
        subset_percent=subset_percent,
    )
    _execute(spec)


def _eval_domains(domain: list[str] | None, origin: Origin | None) -> list[str] | None:
    """`kg eval run`'s selection: the named domains/origin, else the imported domains when the
    graph holds one (said on screen, with the drafts left out), else every domain."""
    from kg import domains as kg_domains

    with open_store() as store:
        if domain or origin is not None:
            return selected(store, domain, origin)
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
def judge_cmd(
    run: str = typer.Option(..., "--run", help="the run whose stored answers are judged"),
    judge: str = typer.Option(
        ..., help="'edge-evidence', 'embedding' or a judge model, e.g. openai/gpt-4o"
    ),
    base_url: str = typer.Option(None, help="OpenAI-compatible endpoint of the judge"),
    api_key_env: str = typer.Option("OPENAI_API_KEY"),
    judge_votes: int = judge_votes_option(),
    judge_granularity: str = judge_granularity_option(),
    run_id: str = typer.Option(None, help="id of the judge run (resumes when it exists)"),
    gt: str = typer.Option("evidence", "--gt", help="evidence or full"),
    domain: list[str] = DOMAINS_OPTION,
    origin: Origin = ORIGIN_OPTION,
    hop: list[int] = typer.Option(None, help="only answers to these hops (repeatable)"),
    limit: int = typer.Option(None, help="the first N answers (by question domain, id)"),
    concurrency: int = typer.Option(8),
    no_cache: bool = typer.Option(False, "--no-cache"),
    max_cost: float = typer.Option(None),
    prices: Path = typer.Option(None),
    timeout: float = typer.Option(None),
    seed: int = typer.Option(0),
    relevancy_n: int = typer.Option(3),
    path_threshold: float = typer.Option(0.8),
    claim_threshold: float = typer.Option(0.7),
) -> None:
    """Judge a run's stored answers again with another judge (the responder is not asked)."""
    from evaluation.judges import registry
    from evaluation.models import GroundTruth
    from evaluation.runs.spec import RunSpec
    from kg.llm import llm_config

    check_judge_options(judge, judge_votes, judge_granularity, registry.is_offline(judge))
    j_llm = (
        None
        if registry.is_offline(judge)
        else llm_config(
            judge,
            base_url=base_url,
            role="judge",
            api_key_env=api_key_env,
            concurrency=concurrency,
            no_cache=no_cache,
            max_cost=max_cost,
            prices=prices,
            timeout_s=timeout,
        )
    )
    spec = RunSpec(
        kind="judge",
        run_id=run_id,
        source_run=run,
        judge=registry.spec_name(judge),
        judge_llm=j_llm,
        judge_votes=judge_votes,
        judge_granularity=judge_granularity,
        gt=_choice(GroundTruth, gt, "--gt"),
        domains=_scope(domain, origin),
        hops=hop or None,
        limit=limit,
        seed=seed,
        relevancy_n=relevancy_n,
        path_threshold=path_threshold,
        claim_threshold=claim_threshold,
    )
    _execute(spec)


@eval_app.command("import-answers")
def import_answers_cmd(
    file: Path = typer.Argument(
        ...,
        help="JSON lines: question_id, answer, optional domain, "
        "model, prompt_tokens, completion_tokens",
    ),
    run_id: str = typer.Option(..., "--run-id", help="id of the run that holds the answers"),
    domain: list[str] = DOMAINS_OPTION,
    origin: Origin = ORIGIN_OPTION,
) -> None:
    """Store answers made by another harness as a run, to judge (`kg eval judge`) and report."""
    from evaluation.runs.answer_import import import_answers
    from evaluation.runs.questions import load_questions

    if not file.is_file():
        fail(f"{file}: no such file")
    with open_store() as store:  # a bad line (AnswerFileError) is reported by KGGroup
        scope = selected(store, domain, origin)
        questions, _ = load_questions(store, domains=scope, skip_invalid=True)
        summary = import_answers(store, file, run_id, questions)
    what = "stored" if summary.new_run else "already stored (nothing changed)"
    console.print(
        f"run [bold]{summary.run_id}[/]: {summary.answers} answer(s) {what}; judge "
        f"them: kg eval judge --run {summary.run_id} --judge edge-evidence"
    )


def _scope(domain: list[str] | None, origin: Origin | None) -> list[str] | None:
    with open_store() as store:
        return selected(store, domain, origin)


def _formats(value: str) -> list[str]:
    out = [f.strip() for f in value.split(",") if f.strip()]
    bad = [f for f in out if f not in ("csv", "json", "md")]
    if bad:
        fail(f"unknown format(s) {', '.join(bad)}: csv, json, md")
    return out


def _print_tables(tables) -> None:
    for t in tables:
        console.print(t.to_markdown(), highlight=False, markup=False, soft_wrap=True)


@eval_app.command("report")
def report_cmd(
    runs: list[str] = typer.Argument(..., help="run ids"),
    out: Path = typer.Option(None, help="write CSV/JSON/Markdown tables and PNG plots here"),
    formats: str = typer.Option("csv,json,md", help="comma-separated: csv, json, md"),
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
        rep = build_report(store, runs, out, _formats(formats), plots, top_k_percent)
        if html is not None:
            _write_html(store, runs, html)
    if rep.lead is not None:
        print_paper_table(rep.lead)
    _print_tables(rep.tables.values())
    if out is not None:
        (out / "report.md").write_text(rep.markdown(), encoding="utf-8")
        console.print(f"wrote {len(rep.files) + 1} file(s) to {out}")
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

    chosen = _choice(Layout, layout, "--layout")
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
def profile_cmd(
    run: str = typer.Argument(..., help="run id"),
    out: Path = typer.Option(None, help="write the tables (CSV/JSON/Markdown) and PNG plots here"),
    formats: str = typer.Option("csv,json,md", help="comma-separated: csv, json, md"),
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
        rep = build_profile(store, run, out, _formats(formats), plots, top_k_percent)
    _print_tables(rep.tables.values())
    if out is not None:
        (out / "profile.md").write_text(rep.markdown(), encoding="utf-8")
        console.print(f"wrote {len(rep.files) + 1} file(s) to {out}")


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
def compare_cmd(
    run_a: str = typer.Argument(...),
    run_b: str = typer.Argument(...),
    out: Path = typer.Option(None),
    formats: str = typer.Option("csv,json,md"),
    top_k_percent: float = typer.Option(
        None, help="FRS: K of the top-K% aggregation, K in (0, 100] (default 50 for sampled runs)"
    ),
) -> None:
    """Paired bootstrap of B - A on the questions both runs judged.

    Sampled runs (or --top-k-percent) are also compared under each FRS aggregation: all
    samples, first sample, top-K% most confident samples per question."""
    from evaluation.profiles.frs import check_top_k
    from evaluation.reporting import export_table
    from evaluation.reporting.report import compare_runs, compare_runs_frs

    if top_k_percent is not None:
        check_top_k(top_k_percent)
    with open_store() as store:
        table = compare_runs(store, run_a, run_b)
        frs = compare_runs_frs(store, run_a, run_b, top_k_percent)
    _print_tables([table] + ([frs] if frs is not None else []))
    if out is not None:
        export_table(table, out, f"compare_{run_a}_{run_b}", _formats(formats))
        if frs is not None:
            export_table(frs, out, f"compare_frs_{run_a}_{run_b}", _formats(formats))


@eval_app.command("agreement")
def agreement_cmd(
    run_1: str = typer.Argument(...),
    run_2: str = typer.Argument(...),
    out: Path = typer.Option(None),
    formats: str = typer.Option("csv,json,md"),
) -> None:
    """Two judges on the same answers: percent agreement, Cohen's kappa, confusion matrix."""
    from evaluation.reporting import export_table
    from evaluation.reporting.report import judge_agreement

    with open_store() as store:
        summary, confusion = judge_agreement(store, run_1, run_2)
    _print_tables([summary, confusion])
    if out is not None:
        export_table(summary, out, f"agreement_{run_1}_{run_2}", _formats(formats))
        export_table(confusion, out, f"confusion_{run_1}_{run_2}", _formats(formats))


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
