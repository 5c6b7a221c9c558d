"""The LLM judge's options shared by `kg eval run`, `kg eval judge` and `kg judge validate`."""

from __future__ import annotations

from typing import Any

import typer

from kg.cli.console import fail

GRANULARITIES = ("answer", "path")


def judge_votes_option() -> Any:
    return typer.Option(
        1,
        "--judge-votes",
        help="LLM judge: ask each checklist N times (temperature above 0, each vote with its "
        "own path order) and take the majority; ties count as absent (use an odd N); the "
        "judge's self-agreement (Fleiss' kappa) is reported",
    )


def judge_granularity_option() -> Any:
    return typer.Option(
        "answer",
        "--judge-granularity",
        help="LLM judge: 'answer' (one call judges all paths of an answer) or 'path' (one "
        "call per path, for small models)",
    )


def check_judge_options(judge: str, votes: int, granularity: str, offline: bool) -> None:
    """Votes and granularity are options of an LLM judge: refused for an offline one."""
    if votes < 1:
        fail(f"--judge-votes: at least 1 (got {votes})")
    if granularity not in GRANULARITIES:
        fail(f"--judge-granularity {granularity!r}: choose one of {', '.join(GRANULARITIES)}")
    if offline and (votes != 1 or granularity != "answer"):
        fail(f"--judge-votes and --judge-granularity need an LLM judge (got {judge!r})")
