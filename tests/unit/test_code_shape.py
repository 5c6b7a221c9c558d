"""The shape the construction code keeps: no function with more than 8 parameters (state goes in
a typed plan, e.g. `BuildPlan`), and no stage module that asks which route it is on (a stage's
offline and LLM implementations are chosen once by the runner, `construction/pipeline/stage.py`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_PARAMS = 8


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    names += [x for x in (a.vararg, a.kwarg) if x is not None]
    return sum(1 for n in names if n.arg not in ("self", "cls"))


def test_no_construction_function_takes_more_than_eight_parameters():
    long = [
        f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name} ({_params(fn)})"
        for path in sorted((ROOT / "construction").rglob("*.py"))
        for fn in _functions(ast.parse(path.read_text(), str(path)))
        if _params(fn) > MAX_PARAMS
    ]
    assert not long, "more than 8 parameters (pass a typed plan):\n" + "\n".join(long)


def test_no_pipeline_module_branches_on_the_model():
    branching = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in sorted((ROOT / "construction" / "pipeline").glob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if "ctx.llm" in line
    ]
    assert not branching, "`ctx.llm` in a pipeline module (implement Stage.llm):\n" + "\n".join(
        branching
    )
