"""Every Cypher and prompt name the code uses exists, and every shipped file is used.

Names are found statically (string literals and f-string templates in the source), so a renamed
or deleted file fails here, not at run time in the middle of a build.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from kg import cypher_files

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["kg", "construction", "evaluation", "benchmarks"]
# Tests also count as users (queries that only check a result); they may name missing files
# on purpose, so only the product's own names must exist.
USERS = [*SOURCES, "tests"]
NAME = re.compile(r"^[a-z][a-z0-9_]*(/[a-z0-9_]+)+$")


def _prompt_names() -> set[str]:
    base = ROOT / "prompts"
    return {
        str(p.relative_to(base).with_suffix(""))
        for p in base.rglob("*")
        if p.suffix in (".md", ".txt")
    }


def _benchmark_names() -> set[str]:
    base = ROOT / "benchmarks" / "bench_queries"
    return {p.stem for p in base.glob("*.cypher")} if base.is_dir() else set()


def _literals(folders: list[str] = USERS) -> tuple[set[str], list[re.Pattern[str]]]:
    """String constants, and f-strings turned into patterns (`area/{x}` -> `area/[a-z0-9_]+`)."""
    consts: set[str] = set()
    templates: list[re.Pattern[str]] = []
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    consts.add(node.value)
                elif isinstance(node, ast.JoinedStr):
                    parts = [
                        re.escape(v.value) if isinstance(v, ast.Constant) else "[a-z0-9_]+"
                        for v in node.values
                    ]
                    pattern = "".join(parts)
                    if "/" in pattern and re.match(r"[a-z]|\[a-z", pattern):
                        templates.append(re.compile(f"^{pattern}$"))
    return consts, templates


def _used(name: str, consts: set[str], templates: list[re.Pattern[str]]) -> bool:
    if name in consts:
        return True
    leaf = name.rsplit("/", 1)[-1]
    # `f"area/{name}"` with the leaf itself a literal elsewhere (a plan of statement names).
    return any(t.match(name) for t in templates) and (leaf in consts or name in consts)


def test_every_name_used_in_code_exists():
    consts, _ = _literals(SOURCES)
    cypher = set(cypher_files.all_names())
    prompts = _prompt_names()
    areas = {n.split("/")[0] for n in cypher | prompts}
    used = {c for c in consts if NAME.match(c) and c.split("/")[0] in areas}
    missing = sorted(u for u in used if u not in cypher and u not in prompts)
    assert not missing, f"names used in code with no cypher/ or prompts/ file: {missing}"


def test_every_cypher_file_is_used():
    consts, templates = _literals()
    # Schema files are applied as a set (`Store.ensure_schema` walks `schema/`).
    unused = sorted(
        n
        for n in cypher_files.all_names()
        if not n.startswith("schema/") and not _used(n, consts, templates)
    )
    assert not unused, f"Cypher files no code uses: {unused}"


def test_every_prompt_file_is_used():
    consts, templates = _literals()
    unused = sorted(n for n in _prompt_names() if not _used(n, consts, templates))
    assert not unused, f"prompt files no code uses: {unused}"


def test_benchmark_queries_are_used_by_benchmarks():
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "benchmarks").glob("*.py"))
    unused = sorted(n for n in _benchmark_names() if f'"{n}"' not in text)
    assert not unused, f"benchmark Cypher files no benchmark uses: {unused}"
