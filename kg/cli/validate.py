"""`kg validate DOMAIN [--format table|json]`: the quality checks of a domain (built or
imported); exit code 1 when a check fails."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from kg.cli.console import console, fail
from kg.cli.scopes import DOMAINS, ORIGIN, selected
from kg.domains import Origin

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
        detail = c.detail + (f"\n[dim]convention: {c.convention}[/]" if c.convention else "")
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
        domain: str = typer.Argument(
            None, help="the domain to check (built or imported); or --domain / --origin"
        ),
        domains: Annotated[list[str] | None, DOMAINS] = None,
        origin: Annotated[Origin | None, ORIGIN] = None,
        fmt: str = typer.Option("table", "--format", help="table or json"),
    ) -> None:
        """Check that a domain's benchmark is one an author would keep (structure, grounding,
        naming, duplicates, hop distribution); exit 1 when a check fails. Each check names the
        published convention it follows (docs/perspectivebench.md)."""
        if fmt not in ("table", "json"):
            fail(f"--format {fmt!r}: use table or json")
        from construction.quality.validate import DomainNotFound, validate_domain
        from kg import domains as kg_domains
        from kg.store import Store

        names = ([domain] if domain else []) + list(domains or [])
        with Store() as store:
            scope = selected(store, names, origin) or [
                d.name for d in kg_domains.select(store) if d.questions or d.concepts
            ]
            if not scope:
                fail("no domain in the graph: import or build one first")
            try:
                reports = [validate_domain(store, name) for name in scope]
            except DomainNotFound as exc:
                fail(str(exc))
        if fmt == "json":
            data = [r.model_dump() for r in reports]
            console.print_json(json.dumps(data[0] if len(data) == 1 else data))
        else:
            for report in reports:
                print_report(report)
        if any(r.status == "fail" for r in reports):
            raise typer.Exit(1)
