"""`kg validate DOMAIN [--format table|json]`: the quality checks of a domain (built or
imported); exit code 1 when a check fails."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.table import Table

from kg.cli.console import console, fail

_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red"}


def report_tables(report: Any, shown: int = 5) -> list[Table]:
    """The checks table (with the first offending items) and the per-hop table."""
    checks = Table(
        title=f"kg validate {report.domain}: {report.status.upper()} "
        f"({report.questions} questions, {report.concepts} concepts, "
        f"{report.edges} edges)"
    )
    for col in ("check", "status", "value", "detail"):
        checks.add_column(col, overflow="fold")
    for c in report.checks:
        detail = c.detail
        if c.offending:
            items = "\n".join(f"  - {o}" for o in c.offending[:shown])
            more = f"\n  ... {len(c.offending) - shown} more" if len(c.offending) > shown else ""
            detail = f"{detail}\n{items}{more}"
        checks.add_row(c.name, f"[{_STYLE[c.status]}]{c.status}[/]", c.value, detail)
    hops = Table(title="questions per hop (paper's Table 1 beside)")
    for col in (
        "hop",
        "questions",
        "share",
        "avg paths",
        "avg target",
        "avg distractor",
        "paper questions",
        "paper share",
        "paper avg paths",
    ):
        hops.add_column(col, justify="right")
    for r in report.hops:
        hops.add_row(
            str(r.hop),
            str(r.questions),
            f"{r.share:.0%}",
            f"{r.avg_total:.2f}",
            f"{r.avg_target:.2f}",
            f"{r.avg_distractor:.2f}",
            str(r.paper_questions),
            f"{r.paper_share:.0%}",
            f"{r.paper_avg_total:.2f}",
        )
    return [checks, hops]


def print_report(report: Any) -> None:
    for table in report_tables(report):
        console.print(table)


def register(app: typer.Typer) -> None:
    """Attach `kg validate` to the main app."""

    @app.command("validate")
    def validate(
        domain: str = typer.Argument(..., help="the domain to check (built or imported)"),
        fmt: str = typer.Option("table", "--format", help="table or json"),
    ) -> None:
        """Check that a domain's benchmark is one an author would keep (structure, grounding,
        naming, duplicates, hop distribution); exit 1 when a check fails."""
        if fmt not in ("table", "json"):
            fail(f"--format {fmt!r}: use table or json")
        from construction.quality.validate import DomainNotFound, validate_domain
        from kg.store import Store

        with Store() as store:
            try:
                report = validate_domain(store, domain)
            except DomainNotFound as exc:
                fail(str(exc))
        if fmt == "json":
            console.print_json(json.dumps(report.model_dump()))
        else:
            print_report(report)
        if report.status == "fail":
            raise typer.Exit(1)
