"""Load the named, parameterized Cypher files shipped in the `cypher` package."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from kg.errors import StoreError

_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")


class CypherNotFound(StoreError, KeyError):
    """No shipped Cypher file has this name (a bug in the caller, not in user input)."""


def _root() -> Traversable:
    return resources.files("cypher")


@cache
def load(name: str) -> str:
    """Text of `cypher/<name>.cypher`; `name` is like `core/node_counts`."""
    if not _NAME.match(name):
        raise CypherNotFound(f"invalid Cypher file name {name!r}")
    *dirs, leaf = name.split("/")
    node = _root()
    for d in dirs:
        node = node / d
    file = node / f"{leaf}.cypher"
    if not file.is_file():
        raise CypherNotFound(f"no Cypher file named {name!r} (expected cypher/{name}.cypher)")
    return file.read_text(encoding="utf-8").strip()


def statements(name: str) -> list[str]:
    """A file split into statements on `;` at line ends (for schema files with several)."""
    parts = re.split(r";\s*(?:\n|$)", load(name))
    out = []
    for p in parts:
        lines = [ln for ln in p.splitlines() if not ln.strip().startswith("//")]
        text = "\n".join(lines).strip()
        if text:
            out.append(text)
    return out


def all_names() -> list[str]:
    """Every Cypher file name in the package, sorted."""
    names: list[str] = []

    def walk(node: Traversable, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir() and not child.name.startswith("__"):
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".cypher"):
                names.append(prefix + child.name[: -len(".cypher")])

    walk(_root(), "")
    return sorted(names)
