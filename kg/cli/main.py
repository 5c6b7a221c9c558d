"""Entry point of the `kg` command.

Sub-modules import heavy libraries (torch, sentence-transformers, pandas) inside their
commands, never at import time, so `kg --help` and `kg db status` stay fast.
"""

from __future__ import annotations

import os

import typer

from kg.cli import bench, build, cache, db, domain, judge, llm, perspectra, validate
from kg.cli import eval as eval_cli
from kg.cli.console import KGGroup

app = typer.Typer(
    name="kg",
    cls=KGGroup,  # every product error (kg.errors.KGError) is reported here, once
    help="PerspectiveKG: build, query and evaluate perspective benchmarks in Neo4j.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def main(
    uri: str | None = typer.Option(None, "--uri", help="Neo4j URI of an existing server."),
    user: str | None = typer.Option(None, "--user", help="Neo4j user."),
    bolt_port: int | None = typer.Option(None, "--bolt-port", help="Port of the local server."),
    database: str | None = typer.Option(None, "--database", help="Neo4j database name."),
) -> None:
    """Global options override KG_* variables and .env for every command of this call."""
    # Commands read settings through kg.settings.get_settings(); setting the variables here
    # makes the CLI options win everywhere without threading them through each command.
    for var, value in (
        ("KG_NEO4J_URI", uri),
        ("KG_NEO4J_USER", user),
        ("KG_BOLT_PORT", bolt_port),
        ("KG_NEO4J_DATABASE", database),
    ):
        if value is not None:
            os.environ[var] = str(value)


@app.command()
def version() -> None:
    """Print the package version."""
    from kg import __version__

    typer.echo(__version__)


db.register(app)
llm.register(app)
bench.register(app)
build.register(app)
cache.register(app)
domain.register(app)
eval_cli.register(app)
judge.register(app)
perspectra.register(app)
validate.register(app)


if __name__ == "__main__":  # pragma: no cover
    app()
