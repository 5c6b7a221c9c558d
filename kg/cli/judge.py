"""`kg judge validate|list`: measure a judge against gold labels and keep the result."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kg.cli.console import console, err_console, fail, open_store

judge_app = typer.Typer(
    help="How far a judge can be trusted: validate it against gold labels.", no_args_is_help=True
)


def make_named_judge(
    name: str,
    *,
    base_url: str | None,
    api_key_env: str,
    concurrency: int,
    timeout: float | None,
    no_cache: bool,
):
    """An offline judge by name, else an LLM judge (path checklist only) for model `name`."""
    from evaluation.judges import OFFLINE_JUDGES, EdgeEvidenceJudge, EmbeddingJudge, LLMJudge

    if name == "edge-evidence":
        return EdgeEvidenceJudge(faithfulness=False)
    if name == "embedding":
        return EmbeddingJudge()
    if name.startswith(("offline:", "baseline:")):
        fail(f"unknown offline judge {name!r}: {', '.join(OFFLINE_JUDGES)}")
    from kg.llm import LLMClient, llm_config

    cfg = llm_config(
        name,
        base_url=base_url,
        role="judge",
        api_key_env=api_key_env,
        concurrency=concurrency,
        no_cache=no_cache,
        max_cost=None,
        prices=None,
        timeout_s=timeout,
    )
    return LLMJudge(LLMClient(cfg), relevancy_n=0, faithfulness=False)


@judge_app.command("validate")
def validate_cmd(
    gold: Path = typer.Option(
        ..., "--gold", help="gold labels (JSON lines, see docs/judge-gold-format.md)"
    ),
    judge: str = typer.Option(
        "edge-evidence",
        help="'edge-evidence', 'embedding' or a judge "
        "model on an OpenAI-compatible endpoint (with --base-url)",
    ),
    base_url: str = typer.Option(None, help="OpenAI-compatible endpoint of the judge model"),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="env var with the judge's key"),
    concurrency: int = typer.Option(8, help="requests in flight (LLM judge)"),
    timeout: float = typer.Option(None, help="seconds per request (LLM judge)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not use the response cache"),
    limit: int = typer.Option(
        None,
        "--limit",
        min=1,
        help="judge at most N gold answers (round robin over the questions): bounds a slow "
        "LLM judge",
    ),
    fmt: str = typer.Option("table", "--format", help="table or json"),
    store_result: bool = typer.Option(
        True, "--store/--no-store", help="keep the result in the graph for reports"
    ),
) -> None:
    """Run a judge on the gold answers of questions in the graph and report its agreement."""
    from evaluation.judge_gold import file_hash, first_answers, load_gold
    from evaluation.judge_validation import decide, store_validation, summarize, validation_table
    from evaluation.questions import load_questions
    from kg.cli.eval import _print_tables

    if fmt not in ("table", "json"):
        fail(f"unknown format {fmt!r}: table or json")
    if not gold.is_file():
        fail(f"{gold}: no such gold file")
    with open_store() as store:  # a GoldFileError or bad judge setting is reported by KGGroup
        questions, _ = load_questions(store, skip_invalid=True)
        items = first_answers(load_gold(gold, questions), limit)
        j = make_named_judge(
            judge,
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout=timeout,
            no_cache=no_cache,
        )
        decisions, errors = decide(j, items)
        if not decisions:
            fail(f"the judge failed on every gold answer: {'; '.join(errors[:3])}")
        result = summarize(j.name, decisions, gold, file_hash(gold), errors)
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
            console.print(
                f"stored as {result.uid}: reports of runs judged by {j.name} now "
                f"show kappa {result.overall.kappa.mean:.2f}",
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
    from evaluation.judge_validation import trust_line

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


def register(app: typer.Typer) -> None:
    app.add_typer(judge_app, name="judge")
