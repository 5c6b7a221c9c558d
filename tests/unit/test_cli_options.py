"""Option groups (kg/cli/options.py): a toy group on a toy command, through typer's CliRunner,
and the product commands that share a group expose the same options."""

from __future__ import annotations

from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from kg.cli.main import app as kg_app
from kg.cli.options import DROP, Change, LLMEndpoint, OptionGroup, Output, grouped

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}


class Retry(OptionGroup):
    """A toy group: adding an option to every command that takes it is one field here."""

    attempts: Annotated[int, typer.Option(help="tries per request")] = 3
    backoff: Annotated[float, typer.Option("--backoff-s", help="seconds between tries")] = 0.5


def _toy() -> typer.Typer:
    toy = typer.Typer()

    @toy.command("fetch")
    @grouped
    def fetch(
        url: str = typer.Argument(...),
        retry: Retry = Retry.options(),
        verbose: bool = typer.Option(False, "--verbose"),
    ) -> None:
        typer.echo(f"{url} {retry.attempts} {retry.backoff} {verbose}")

    @toy.command("probe")
    @grouped
    def probe(
        retry: Retry = Retry.options(attempts=Change(1, "one try: a probe"), backoff=DROP),
    ) -> None:
        typer.echo(f"{retry.attempts} {retry.backoff}")

    return toy


def test_a_command_receives_its_group_as_one_typed_object() -> None:
    toy = _toy()
    result = CliRunner().invoke(toy, ["fetch", "http://x", "--attempts", "5", "--backoff-s", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["http://x", "5", "2.0", "False"]


def test_defaults_help_and_dropped_fields() -> None:
    toy = _toy()
    runner = CliRunner()
    assert runner.invoke(toy, ["fetch", "u"]).output.split() == ["u", "3", "0.5", "False"]
    fetch_help = runner.invoke(toy, ["fetch", "--help"], env=ENV).output
    assert "--attempts" in fetch_help and "tries per request" in fetch_help
    assert "--backoff-s" in fetch_help and "seconds between tries" in fetch_help
    probe = runner.invoke(toy, ["probe"])
    assert probe.output.split() == ["1", "0.5"]  # its own default; the dropped field's default
    probe_help = runner.invoke(toy, ["probe", "--help"], env=ENV).output
    assert "one try: a probe" in probe_help and "--backoff-s" not in probe_help
    assert runner.invoke(toy, ["probe", "--backoff-s", "1"]).exit_code == 2  # no such option


def test_an_option_declared_twice_or_unknown_is_refused() -> None:
    with pytest.raises(TypeError, match="declared twice: attempts"):

        @grouped
        def clash(attempts: int = 1, retry: Retry = Retry.options()) -> None: ...

    with pytest.raises(TypeError, match="has no option"):
        Retry.options(retries=2)


def test_output_formats_are_checked() -> None:
    assert Output(formats="csv, md").chosen() == ["csv", "md"]
    with pytest.raises(typer.Exit):
        Output(formats="csv,xlsx").chosen()


@pytest.mark.parametrize(
    "command",
    [
        ("build",),
        ("eval", "run"),
        ("eval", "judge"),
        ("judge", "validate"),
        ("perspectra", "expand"),
        ("perspectra", "eval"),
    ],
    ids=" ".join,
)
def test_commands_with_a_model_share_the_endpoint_options(command: tuple[str, ...]) -> None:
    """Every field of `LLMEndpoint` is an option of every command that calls a model."""
    out = CliRunner().invoke(kg_app, [*command, "--help"], env=ENV).output
    for name in LLMEndpoint.model_fields:
        assert f"--{name.replace('_', '-')}" in out, (command, name)
