"""The code's shape, checked on the source (issue 25): orchestrators take typed plans and
option groups, not long argument lists; judges are made in one place.

A function's parameters are counted as its signature spells them: positional-only, ordinary
and keyword-only parameters, `self` and `cls` included; `*args` and `**kwargs` are not counted
(they forward, they declare nothing). Typer commands count as written, before `@grouped`
spreads their option groups (kg/cli/options.py) into options.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_PARAMETERS = 8
PRODUCT = ("kg", "construction", "evaluation")
# the classes a judge is; only the judge registry constructs them in product code
JUDGE_CLASSES = ("EdgeEvidenceJudge", "EmbeddingJudge", "LLMJudge")


def _modules(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def _parameter_count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)


def wide_functions(package: str, limit: int = MAX_PARAMETERS) -> list[str]:
    """`file:line name (N parameters)` of every function or method of `package` over `limit`."""
    out = []
    for path in _modules(package):
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
    assert wide_functions("kg", limit=0)  # the walk sees the package's functions


@pytest.mark.parametrize("package", PRODUCT)
def test_product_functions_take_at_most_8_parameters(package: str) -> None:
    wide = wide_functions(package)
    assert not wide, (
        f"functions over {MAX_PARAMETERS} parameters (pass a typed plan, a typed work item or "
        "an option group, kg/cli/options.py):\n" + "\n".join(wide)
    )


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


def test_no_pipeline_module_branches_on_the_model() -> None:
    """A build stage is one interface with an offline and an LLM implementation, chosen once
    (construction/pipeline/stage.py): no stage module asks `ctx.llm` itself."""
    branching = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in sorted((ROOT / "construction" / "pipeline").glob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "ctx.llm" in line
    ]
    assert not branching, "`ctx.llm` in a pipeline module (implement Stage.llm):\n" + "\n".join(
        branching
    )
