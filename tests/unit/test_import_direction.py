"""The layering, checked on every import statement (top level and inside functions):

- the core (`kg` outside `kg/cli`) imports no stage (`construction`, `evaluation`);
- `evaluation` never imports `construction` (task sets are built there and read from the graph);
- no product module imports the CLI (`kg.cli`); only the CLI itself and tests do.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _violations(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for path in paths:
        for name in sorted(_imports(path)):
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                out.append(f"{path.relative_to(ROOT)} imports {name}")
    return out


def _core() -> list[Path]:
    return [p for p in _modules("kg") if "cli" not in p.relative_to(ROOT / "kg").parts[:1]]


def test_core_imports_no_stage_and_no_cli():
    assert not _violations(_core(), ("construction", "evaluation", "kg.cli"))


def test_evaluation_never_imports_construction():
    assert not _violations(_modules("evaluation"), ("construction", "kg.cli"))


def test_construction_does_not_import_the_cli():
    assert not _violations(_modules("construction"), ("kg.cli",))


@pytest.mark.parametrize("package", ["kg", "construction", "evaluation"])
def test_the_check_sees_every_package(package):
    # Guard against a silently empty walk (a moved folder would make the rules vacuous).
    assert len(_modules(package)) > 5
