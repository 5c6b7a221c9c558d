"""`kg db up|status|down|reset`: the Neo4j server the graph lives in."""

from __future__ import annotations

import time

import typer
from rich.table import Table

from kg.cli.console import console, err_console, exit_unless_running, fail, open_store
from kg.settings import Settings, get_settings

db_app = typer.Typer(
    help="Start, inspect, stop and reset the Neo4j server (GDS optional: KG_GDS).",
    no_args_is_help=True,
)

# What each part of the product runs on the server. No command calls GDS (a unit test keeps
# `gds.*` out of every query but the two admin ones), so a server without it (AuraDB Free/Pro,
# KG_GDS=false) gives the same results.
ROUTES = "perspective grouping in pure Cypher; no command calls GDS"


@db_app.command("up")
def up() -> None:
    """Start the local server (resolving Neo4j, and GDS unless KG_GDS=false, with Maven on
    first use); idempotent. With NEO4J_URI set it starts nothing and applies the schema there."""
    from kg.server import process

    settings = get_settings()
    if not settings.is_local:
        _remote_check(settings)
        return
    before = process.status(settings).state
    t0 = time.monotonic()

    def progress(msg: str) -> None:
        err_console.print(f"[dim]{time.monotonic() - t0:6.1f} s[/]  {msg}", highlight=False)

    try:
        # A ServerError (with its fix and log tail) is reported by KGGroup.
        report = process.start(settings, progress=progress)
    except KeyboardInterrupt:
        fail("interrupted; the server this command launched was stopped", code=130)
    st = report.status
    if before is process.State.RUNNING:
        verb = "already running"
    else:
        prov = f"provisioned in {report.provision_s:.1f} s, " if report.provision_s >= 1 else ""
        verb = f"started ({prov}Bolt answered {report.start_s:.1f} s after launch)"
    with open_store(settings) as store:
        n = store.ensure_schema()
    console.print(
        f"Neo4j {verb}: {settings.bolt_uri} (pid {st.pid}), schema: {n} statements applied; "
        f"logs in {st.home.logs}"
    )


def _remote_check(settings: Settings) -> None:
    """`kg db up` with NEO4J_URI: kg starts nothing (that server is not its own) and says so
    first; it still connects and applies the schema, which `make demo`/`make test` rely on."""
    err_console.print(
        f"kg db up starts only the local server: NEO4J_URI points at {settings.bolt_uri}, "
        "which kg neither starts nor stops (unset NEO4J_URI to use the local one). "
        "Nothing started.",
        highlight=False,
        soft_wrap=True,
    )
    with open_store(settings) as store:
        store.verify()
        n = store.ensure_schema()
    console.print(f"Using the existing server at {settings.bolt_uri}; schema: {n} statements.")


@db_app.command("status")
def status() -> None:
    """Server state, Neo4j and GDS versions, the routes commands use, node counts per label,
    where the logs are."""
    from kg.server import process

    settings = get_settings()
    if settings.is_local:
        st = process.status(settings)
        console.print(
            f"state: [bold]{st.state.value}[/] (pid {st.pid or '-'})  "
            f"home: {st.home.root}  logs: {st.home.logs}"
        )
        exit_unless_running(
            st.state,
            lambda: process.log_tail(st.home),
            "the server died without `kg db down`; run `kg db up` to restart it",
        )
    _print_graph_status(settings)


def _print_graph_status(settings: Settings) -> None:

    t0 = time.perf_counter()
    with open_store(settings) as store:
        info = store.query("core/server_info")[0]
        gds = store.gds_version() or "not installed"
        counts = store.node_counts()
    console.print(
        f"uri: {settings.bolt_uri} ({settings.uri_kind})  "
        f"{info['name']} {info['version']} ({info['edition']})  GDS {gds}",
        highlight=False,
        soft_wrap=True,  # one line for scripts and logs, whatever the width
    )
    console.print(f"routes: {ROUTES}", highlight=False, soft_wrap=True)
    table = Table("label", "nodes", title=f"graph ({time.perf_counter() - t0:.2f} s)")
    for label, count in counts.items():
        table.add_row(label, str(count))
    console.print(table)


@db_app.command("down")
def down() -> None:
    """Stop the local server cleanly."""
    from kg.server import process

    settings = get_settings()
    if not settings.is_local:
        fail(
            f"kg db down stops only the local server: NEO4J_URI points at {settings.bolt_uri}, "
            "which kg neither starts nor stops; nothing stopped (unset NEO4J_URI to stop the "
            "local one)",
            code=2,
        )
    stopped = process.stop(settings)
    console.print("Neo4j stopped." if stopped else "Neo4j was not running.")


@db_app.command("reset")
def reset(yes: bool = typer.Option(False, "--yes", help="Confirm deleting every node.")) -> None:
    """Delete every node and relationship (and in-memory GDS graphs), keep the schema."""

    if not yes:
        fail("this deletes the whole graph; pass --yes to confirm")
    with open_store() as store:
        store.drop_gds_graphs()
        store.wipe()
        store.ensure_schema()
    console.print("Graph emptied.")


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
