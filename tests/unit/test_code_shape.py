"""The shape the code keeps (issue 25): orchestrators take a plan, not long argument lists;
judges are made in one place."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_PARAMETERS = 8
# the classes a judge is; only the judge registry constructs them in product code
JUDGE_CLASSES = ("EdgeEvidenceJudge", "EmbeddingJudge", "LLMJudge")
PRODUCT = ("kg", "construction", "evaluation")


def _modules(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    named = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    return [p.arg for p in named if p.arg not in ("self", "cls")]


def test_evaluation_functions_take_at_most_8_parameters() -> None:
    too_long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}() takes {len(params)}"
        for path in _modules("evaluation")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and len(params := _parameters(node)) > MAX_PARAMETERS
    ]
    assert not too_long, "pass a typed plan instead:\n" + "\n".join(too_long)


def test_judges_are_made_only_by_the_judge_registry() -> None:
    registry = ROOT / "evaluation" / "judges" / "registry.py"
    made = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}(...)"
        for path in _modules(*PRODUCT)
        if path != registry
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in JUDGE_CLASSES
    ]
    assert not made, "make judges with evaluation.judges.registry:\n" + "\n".join(made)
    assert "EdgeEvidenceJudge(" in registry.read_text(encoding="utf-8")  # the guard sees calls
