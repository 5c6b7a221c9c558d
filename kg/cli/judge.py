"""`kg judge validate|list|sample|annotate|agreement`: measure a judge against gold labels,
keep the result, and make gold labels for a run's own answers (the human labeling loop)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, cast

import typer

from kg.cli.console import console, err_console, fail, open_store
from kg.cli.options import DROP, Change, JudgeChoice, LLMEndpoint, Selection, grouped

if TYPE_CHECKING:
    from evaluation.judges.base import Judge

judge_app = typer.Typer(
    help="How far a judge can be trusted: validate it against gold labels.", no_args_is_help=True
)


def make_named_judge(judging: JudgeChoice, llm: LLMEndpoint) -> Judge:
    """An offline judge by name, else an LLM judge (path checklist only) for the model
    `judging.judge` on the endpoint `llm` (made by the judge registry)."""
    from evaluation.judges import registry
    from kg.errors import InputError

    judging.check()
    try:
        entry = registry.entry_for(judging.judge)
    except InputError as exc:
        fail(str(exc))
    client = None
    if entry.needs_llm:
        from kg.llm import LLMClient

        client = LLMClient(llm.config(judging.judge, "judge"))
    settings = {
        "faithfulness": False,
        "relevancy_n": 0,
        "votes": judging.judge_votes,
        "granularity": judging.judge_granularity,
    }
    return entry.make(settings, client)


@judge_app.command("validate")
@grouped
def validate_cmd(
    gold: Path = typer.Option(
        ..., "--gold", help="gold labels (JSON lines, see docs/judge-gold-format.md)"
    ),
    judging: JudgeChoice = JudgeChoice.options(
        judge_base_url=DROP, judge_fleet=DROP, judge_api_key_env=DROP
    ),
    llm: LLMEndpoint = LLMEndpoint.options(
        base_url=Change(
            help="OpenAI-compatible endpoint of the judge model; repeat it for a fleet"
        ),
        api_key_env=Change(help="env var with the judge's key"),
    ),
    sel: Selection = Selection.options(
        hop=DROP,
        limit=Change(
            min=1,
            help="judge at most N gold answers (round robin over the questions): bounds a "
            "slow LLM judge",
        ),
    ),
    gold_kind: str = typer.Option(
        None,
        "--gold-kind",
        help="natural (answers as models write them) or constructed (written to state chosen "
        "paths), for lines that declare no `kind`; default: inferred from known style names",
    ),
    fmt: str = typer.Option("table", "--format", help="table or json"),
    store_result: bool = typer.Option(
        True, "--store/--no-store", help="keep the result in the graph for reports"
    ),
) -> None:
    """Run a judge on the gold answers of questions in the graph and report its agreement.

    A gold line names its question by `question_id` (and `domain` when given). Where the id
    exists in several of the selected domains, the question whose valid paths carry the
    line's path names is taken, then the imported one (published gold refers to published
    questions); a line still ambiguous is an error asking for a `domain` field."""
    from evaluation.judges.gold import file_hash, first_answers, load_gold
    from evaluation.judges.gold_kinds import GoldKind
    from evaluation.judges.validation import decide, store_validation, summarize, validation_table
    from evaluation.runs.questions import load_questions
    from kg.cli.eval import _print_tables

    if fmt not in ("table", "json"):
        fail(f"unknown format {fmt!r}: table or json")
    if gold_kind not in (None, "natural", "constructed"):
        fail(f"unknown --gold-kind {gold_kind!r}: natural or constructed")
    if not gold.is_file():
        fail(f"{gold}: no such gold file")
    with open_store() as store:  # a GoldFileError or bad judge setting is reported by KGGroup
        questions, _ = load_questions(store, domains=sel.domains(store), skip_invalid=True)
        kind = cast("GoldKind | None", gold_kind)  # checked above
        items = first_answers(load_gold(gold, questions, kind), sel.limit)
        j = make_named_judge(judging, llm)
        if j.learns:  # e.g. the edge-evidence judge's relation reader: the graph's reasons
            j.learn(load_questions(store, skip_invalid=True)[0])
        decisions, errors = decide(j, items)
        if not decisions:
            fail(f"the judge failed on every gold answer: {'; '.join(errors[:3])}")
        result = summarize(
            j.name, decisions, gold, file_hash(gold), errors, votes=judging.judge_votes
        )
        # A measurement with failed calls is partial: never stored over the last full one.
        if store_result and not errors:
            store_validation(store, result)
    if fmt == "json":
        typer.echo(result.model_dump_json(indent=2))
    else:
        _print_tables([validation_table(result)])
        for err in errors[:10]:
            err_console.print(f"  [yellow]![/] {err}", highlight=False)
        if store_result and not errors:
            kinds = ", ".join(
                f"kappa {g.kappa.mean:.2f} on {g.group} answers"
                for g in result.by_kind
                if g.kappa.mean is not None
            )
            console.print(
                f"stored as {result.uid}: reports of runs judged by {j.name} now show {kinds} "
                f"({gold.name}, sha256 {result.gold_hash[:12]})",
                highlight=False,
            )

    if errors:  # on stderr, after any JSON on stdout; the exit code says it too
        fail(
            f"partial measurement: {len(errors)} judge call(s) failed over "
            f"{len(items)} gold answer(s); "
            + ("nothing stored (the stored measurement is kept)" if store_result else "")
            + "; fix the judge's endpoint or key and run again",
            code=2,
        )


@judge_app.command("list")
def list_cmd(as_json: bool = typer.Option(False, "--json")) -> None:
    """Stored validations, newest first."""
    from evaluation.judges.validation import trust_line

    with open_store() as store:
        rows = store.query("eval/judge_validations_all")
    if as_json:
        typer.echo(
            json.dumps(
                [{k: v for k, v in r["v"].items() if k != "summary"} for r in rows],
                indent=2,
                default=str,
            )
        )
        return
    if not rows:
        console.print("no judge validated yet: `kg judge validate --gold FILE --judge NAME`")
    for r in rows:
        console.print(trust_line(r["v"]["judge"], r["v"]), highlight=False)


@judge_app.command("sample")
def sample_cmd(
    run: str = typer.Argument(..., help="run id whose judged answers to sample"),
    n: int = typer.Option(..., "--n", min=1, help="answers in the sample"),
    seed: int = typer.Option(0, "--seed", help="random seed of the sample"),
    out: Path = typer.Option(
        None, "--out", help="task file to write (default: annotation-RUN.jsonl)"
    ),
) -> None:
    """Sample a run's answers into an annotation task file (blind).

    Stratified by hop, domain and judge verdict; JSON lines; the verdicts are not written.
    """
    from evaluation.labeling.task import sample_run, write_task

    with open_store() as store:
        items = sample_run(store, run, n, seed)
    if not items:
        fail(f"run {run!r} has no judged answer to sample")
    path = write_task(items, out or Path(f"annotation-{run}.jsonl"))
    strata = len({i.stratum for i in items})
    console.print(
        f"{len(items)} answers from {strata} strata (hop/domain/verdict) -> {path}; label them "
        f"with `kg judge annotate {path} --out page.html`",
        highlight=False,
    )


@judge_app.command("annotate")
def annotate_cmd(
    task: Path = typer.Argument(..., help="annotation task file (from `kg judge sample`)"),
    out: Path = typer.Option(..., "--out", help="the HTML page to write"),
) -> None:
    """Write a self-contained labeling page (no network) for a task file.

    The page saves the labels as a gold file that `kg judge validate` reads.
    """
    from evaluation.labeling.annotate import write_annotation_page
    from evaluation.labeling.task import load_task

    if not task.is_file():
        fail(f"{task}: no such task file")
    items = load_task(task)
    path = write_annotation_page(items, out, str(task))
    console.print(f"{len(items)} answers to label -> {path}", highlight=False)


@judge_app.command("agreement")
def agreement_cmd(
    files: list[Path] = typer.Argument(..., help="two or more label files (gold JSONL)"),
    merge: str = typer.Option(
        None, "--merge", help="'majority': write a merged gold file (ties need --adjudicate)"
    ),
    adjudicate: Path = typer.Option(
        None, "--adjudicate", help="labels that settle ties or disputes (gold JSONL lines)"
    ),
    out: Path = typer.Option(None, "--out", help="the merged gold file"),
    fmt: str = typer.Option("table", "--format", help="table or json"),
) -> None:
    """Annotators' agreement on path labels, and a merged gold file.

    Cohen's kappa per pair, Fleiss' kappa for three or more; with --merge or --adjudicate, a
    merged gold file.
    """
    from evaluation.labeling.agreement import (
        agreement_table,
        check_consistent,
        load_labels,
        measure,
        write_gold,
    )
    from evaluation.labeling.agreement import merge as merge_labels
    from kg.cli.eval import _print_tables

    if len(files) < 2:
        fail("give at least two label files")
    if merge not in (None, "majority"):
        fail(f"unknown --merge {merge!r}: majority")
    if (merge or adjudicate) and out is None:
        fail("--merge/--adjudicate need --out FILE for the merged gold")
    if fmt not in ("table", "json"):
        fail(f"unknown format {fmt!r}: table or json")
    for f in [*files, *([adjudicate] if adjudicate else [])]:
        if not f.is_file():
            fail(f"{f}: no such file")
    labels = [load_labels(f) for f in files]
    check_consistent(files, labels)
    result = measure(files, labels)
    merged = None
    if merge or adjudicate:
        adj = load_labels(adjudicate, need_rows=False) if adjudicate else None
        merged = merge_labels(labels, adj, adjudicate)
    if fmt == "json":
        typer.echo(result.model_dump_json(indent=2))
    else:
        _print_tables([agreement_table(result)])
    if merged is not None and out is not None:
        write_gold(merged, out)
        console.print(f"merged gold ({len(merged)} answers) -> {out}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(judge_app, name="judge")
