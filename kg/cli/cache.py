"""`kg cache prune`: bound the LLM reply cache (every prompt and reply sent) on demand."""

from __future__ import annotations

from pathlib import Path

import typer

from kg.cli.console import console, fail

cache_app = typer.Typer(help="The LLM reply cache: prune it.", no_args_is_help=True)


@cache_app.command("prune")
def prune_cmd(
    max_mb: float = typer.Option(
        None, help="keep at most this many MB of replies (default: KG_LLM_CACHE_MAX_MB)"
    ),
    older_than_days: float = typer.Option(None, help="drop replies older than this many days"),
    path: Path = typer.Option(None, help="cache file (default: the one LLM calls use)"),
) -> None:
    """Drop the oldest cached replies past the size bound (and those older than
    --older-than-days), then compact the file."""
    from kg.llm.cache import ResponseCache
    from kg.llm.config import default_cache_path
    from kg.settings import get_settings

    if max_mb is not None and max_mb < 0 or older_than_days is not None and older_than_days < 0:
        fail("--max-mb and --older-than-days must not be negative")
    target = path or default_cache_path()
    if not target.exists():
        console.print(f"no cache at {target}: nothing to prune", highlight=False)
        return
    limit = int((max_mb if max_mb is not None else get_settings().llm_cache_max_mb) * 2**20)
    cache = ResponseCache(target, max_bytes=2**62)  # prune below, not on open
    try:
        before, n_before = cache.size_bytes(), len(cache)
        removed = cache.prune(
            limit,
            older_than_s=older_than_days * 86400 if older_than_days is not None else None,
            vacuum=True,
        )
        after = cache.size_bytes()
    finally:
        cache.close()
    console.print(
        f"{target}: {removed} of {n_before} repl(ies) dropped; "
        f"{before / 2**20:.1f} MB -> {after / 2**20:.1f} MB (bound {limit / 2**20:.0f} MB)",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Attach this area's commands to the main app."""
    app.add_typer(cache_app, name="cache")
