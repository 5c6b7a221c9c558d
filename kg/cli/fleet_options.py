"""The endpoint options of every command that calls a model: `--base-url` (repeat it for a
fleet of endpoints serving the model) and `--fleet FILE` (endpoints with weights, caps and
keys; docs/fleet.md). Factories, like kg.cli.judge_options, so that each command keeps its own
help text and the options move together."""

from __future__ import annotations

from typing import Any

import typer

FLEET_HELP = (
    "fleet file (YAML or JSON): endpoints serving the model, each with base_url and optional "
    "api_key_env, weight, max_in_flight (docs/fleet.md); instead of --base-url"
)


def base_url_option(help: str = "OpenAI-compatible endpoint", flag: str = "--base-url") -> Any:
    return typer.Option(
        None,
        flag,
        metavar="<url>",
        help=f"{help}; repeat it for several endpoints serving the model (a fleet)",
    )


def fleet_option(help: str = FLEET_HELP, flag: str = "--fleet") -> Any:
    return typer.Option(None, flag, help=help, dir_okay=False)
