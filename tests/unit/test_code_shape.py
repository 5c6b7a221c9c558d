"""The code's shape, checked on the source (issue 25): orchestrators take typed plans and
option groups, not long argument lists.

A function's parameters are counted as its signature spells them: positional-only, ordinary
and keyword-only parameters, `self` and `cls` included; `*args` and `**kwargs` are not counted
(they forward, they declare nothing). Typer commands count as written, before `@grouped`
spreads their option groups (kg/cli/options.py) into options.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_PARAMETERS = 8


def _parameter_count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)


def wide_functions(package: str, limit: int = MAX_PARAMETERS) -> list[str]:
    """`file:line name (N parameters)` of every function or method of `package` over `limit`."""
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = _parameter_count(node)
                if n > limit:
                    rel = path.relative_to(ROOT)
                    out.append(f"{rel}:{node.lineno} {node.name} ({n} parameters)")
    return out


def test_parameter_count_counts_what_it_says() -> None:
    fn = ast.parse("def f(self, a, /, b, *args, c, d=1, **kw): pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert _parameter_count(fn) == 5  # self, a, b, c, d; *args and **kw are not counted


def test_kg_functions_take_at_most_8_parameters() -> None:
    wide = wide_functions("kg")
    assert not wide, (
        f"functions over {MAX_PARAMETERS} parameters (pass a typed model or an option "
        "group, kg/cli/options.py):\n" + "\n".join(wide)
    )
