"""`kg domain list` and `kg domain delete NAME --yes`: what each domain holds and where it came
from (imported, built, both), and removing one domain with everything in it."""

from __future__ import annotations

import json
import time

import typer

from kg.cli.console import console, fail, open_store

domain_app = typer.Typer(
    help="The domains in the graph: list them, delete one.", no_args_is_help=True
)


@domain_app.command("list")
def list_cmd(as_json: bool = typer.Option(False, "--json", help="machine-readable output")) -> None:
    """Every domain: origin (imported file + sha256, or build + version), questions, chunks,
    concepts, runs that answered its questions."""
    from rich.table import Table

    from kg import domains
    from kg.leases import effective_status

    with open_store() as store:
        rows = domains.all_domains(store)
        builds = [d.last_build for d in rows if d.last_build]
        status = {b["uid"]: b["status"] for b in effective_status(store, builds)}
    if as_json:
        typer.echo(
            json.dumps(
                [
                    {
                        "name": d.name,
                        "origin": d.origin,
                        "source": d.source,
                        "import_sources": d.import_sources,
                        "questions": d.questions,
                        "imported_questions": d.imported_questions,
                        "chunks": len(d.chunk_uids),
                        "concepts": d.concepts,
                        "runs": d.runs,
                        "last_build": d.last_build
                        and {**d.last_build, "status": status.get(d.last_build["uid"])},
                    }
                    for d in rows
                ],
                indent=2,
            )
        )
        return
    if not rows:
        console.print(
            "no domains yet: `kg import perspectivebench FILE` or `kg build NAME --chunks FILE`"
        )
        return
    t = Table("domain", "origin", "questions", "chunks", "concepts", "runs", "last build")
    t.columns[0].no_wrap = t.columns[1].no_wrap = True
    for d in rows:
        last = status.get(d.last_build["uid"], "") if d.last_build else ""
        t.add_row(
            d.name,
            d.origin,
            str(d.questions),
            str(len(d.chunk_uids)),
            str(d.concepts),
            str(len(d.runs)),
            last,
        )
    console.print(t)
    # the origin's detail under the table, one line per domain: the table stays 80 columns
    for d in rows:
        if d.source:
            console.print(f"{d.name}: {_short_source(d.source)}", highlight=False)


def _short_source(source: str) -> str:
    """Hashes cut to 12 hex digits on screen (`--json` has them whole)."""
    import re

    return re.sub(r"sha256:([0-9a-f]{12})[0-9a-f]+", r"sha256:\1…", source)


@domain_app.command("delete")
def delete_cmd(
    name: str = typer.Argument(..., help="the domain to delete"),
    yes: bool = typer.Option(
        False,
        "--yes",
        help="confirm: deletes the domain's questions, paths, concepts, facts and chunks",
    ),
) -> None:
    """Delete one domain and everything in it; runs that referenced it are kept and marked."""
    from kg import domains

    with open_store() as store:
        d = domains.one(store, name)
        if not d.exists:
            known = [x.name for x in domains.all_domains(store)]
            fail(f"no domain {name!r} (domains: {', '.join(known) or 'none'})")
        if not yes:
            fail(
                f"this deletes domain {name!r} ({d.origin}): {d.questions} question(s), "
                f"{len(d.chunk_uids)} chunk(s), {d.concepts} concept(s); {len(d.runs)} run(s) "
                "referenced it (kept and marked). Add --yes to confirm"
            )
        # The domain's write lease: refused while a build writes it or a live run reads its
        # questions (kg.leases.DomainInUse, exit 3); nothing is deleted then.
        from kg import leases
        from kg.ids import build_run_uid

        with leases.hold(store, f"build:{name}", build_run_uid(name, time.time_ns()), "delete"):
            gone = domains.delete(store, name)
    console.print(
        f"deleted domain {name}: {gone['nodes_deleted']} node(s); "
        f"{gone['runs_marked']} run(s) that referenced it kept and marked "
        "(Run.deleted_domains)"
    )


def register(app: typer.Typer) -> None:
    """Attach this area's commands to the main app."""
    app.add_typer(domain_app, name="domain")
