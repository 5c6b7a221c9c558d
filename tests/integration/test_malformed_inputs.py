"""The malformed-input corpus (issue 30, tests/data/malformed_inputs/): every file is refused
by its reader's command with `file:line:field: problem` (and the problem expected for it),
and the graph's checksum is unchanged."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.cli.main import app

pytestmark = pytest.mark.integration
CORPUS = Path(__file__).resolve().parents[1] / "data" / "malformed_inputs"
CASES = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))


def _command(name: str, path: Path) -> list[str]:
    reader = name.split("_", 1)[0]
    return {
        "bench": ["import", "perspectivebench", str(path)],
        "chunks": ["build", "zq_malformed", "--chunks", str(path)],
        "gold": ["judge", "validate", "--gold", str(path), "--no-store"],
        "answers": ["eval", "import-answers", str(path), "--run-id", "zq-malformed"],
    }[reader]


def checksum(store) -> str:
    """Every node (labels and properties) and relationship (type, ends, properties), leases
    aside (they are bookkeeping, not content)."""
    nodes = store.run_text(
        "MATCH (n) WHERE NOT n:Lease RETURN labels(n) AS l, properties(n) AS p "
        "ORDER BY coalesce(n.uid, n.name, n.key), l"
    )
    rels = store.run_text(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, coalesce(a.uid, a.name) AS a, "
        "coalesce(b.uid, b.name) AS b, properties(r) AS p ORDER BY t, a, b"
    )
    text = "\n".join(sorted(json.dumps(r, sort_keys=True, default=str) for r in nodes + rels))
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_malformed_input_is_refused_with_file_line_field(bench, name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # error reports land here
    before = checksum(bench)
    res = CliRunner().invoke(app, _command(name, CORPUS / name), env={"COLUMNS": "400"})
    out = res.output
    assert res.exit_code != 0, out
    assert "Traceback" not in out, out
    assert re.search(re.escape(name) + r":\d+:[^\s:]+: ", out), out  # file:line:field: problem
    assert CASES[name] in out, out
    assert checksum(bench) == before  # nothing written
