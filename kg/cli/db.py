"""`kg db up|status|down|reset`: the Neo4j server the graph lives in."""

from __future__ import annotations

import time

import typer
from rich.table import Table

from kg.cli.console import console, err_console, exit_unless_running, fail, open_store
from kg.settings import Settings, get_settings

db_app = typer.Typer(
    help="Start, inspect, stop and reset the Neo4j + GDS server.", no_args_is_help=True
)


@db_app.command("up")
def up() -> None:
    """Start the local server (resolving Neo4j and GDS with Maven on first use); idempotent."""
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

    with open_store(settings) as store:
        store.verify()
        n = store.ensure_schema()
    console.print(f"Using the existing server at {settings.bolt_uri}; schema: {n} statements.")


@db_app.command("status")
def status() -> None:
    """Server state, Neo4j and GDS versions, node counts per label, where the logs are."""
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
        try:
            gds = store.query("core/gds_version")[0]["gds_version"]
        except Exception:  # noqa: BLE001 - a server without GDS still reports the rest
            gds = "not installed"
        counts = store.node_counts()
    console.print(
        f"uri: {settings.bolt_uri}  {info['name']} {info['version']} ({info['edition']})  GDS {gds}"
    )
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
        console.print(f"{settings.bolt_uri} is not managed by kg; nothing to stop.")
        return
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
