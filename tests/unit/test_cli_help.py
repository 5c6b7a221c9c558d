"""Snapshot of every command's `--help`: a rename or a lost option shows up as a diff here.

Regenerate after a deliberate change with `KG_UPDATE_HELP=1 pytest tests/unit/test_cli_help.py`
and review the diff of `tests/data/help/`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from kg.cli.main import app

SNAPSHOTS = Path(__file__).resolve().parents[1] / "data" / "help"
ENV = {"COLUMNS": "100", "TERMINAL_WIDTH": "100", "NO_COLOR": "1", "TERM": "dumb"}


def _commands() -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [()]

    def walk(cmd: Any, prefix: tuple[str, ...]) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in sorted(cmd.commands.items()):
                out.append((*prefix, name))
                walk(sub, (*prefix, name))

    walk(typer.main.get_command(app), ())
    return out


@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p) or "kg")
def test_help_matches_snapshot(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env=ENV)
    assert result.exit_code == 0, result.output
    text = "\n".join(line.rstrip() for line in result.output.splitlines()) + "\n"
    snap = SNAPSHOTS / (("_".join(path) or "kg") + ".txt")
    if os.environ.get("KG_UPDATE_HELP") == "1":
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), f"no snapshot {snap.name}: run with KG_UPDATE_HELP=1 and review it"
    assert text == snap.read_text(encoding="utf-8")


def test_every_snapshot_has_a_command() -> None:
    names = {("_".join(p) or "kg") + ".txt" for p in _commands()}
    stale = sorted(p.name for p in SNAPSHOTS.glob("*.txt") if p.name not in names)
    assert not stale, f"snapshots of commands that no longer exist: {stale}"
