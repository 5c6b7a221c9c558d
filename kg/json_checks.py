"""Checks of decoded JSON that Neo4j would otherwise fail on mid-write, with the field named.

Neo4j integers are 64-bit and its strings are UTF-8: an id above 2^63 - 1 or a lone UTF-16
surrogate (`"\\ud800"` is valid JSON) would end in a driver traceback. Deep nesting makes
Python's decoder raise RecursionError; `loads` turns that into a plain problem.
"""

from __future__ import annotations

import json
from typing import Any

from kg.errors import InputError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DEPTH = 100  # far deeper than any record we read (PerspectiveBench: 5 levels)


class JSONProblem(InputError):
    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


def loads(text: str) -> Any:
    """`json.loads`, with nesting beyond what the decoder can take reported as a JSONProblem."""
    try:
        return json.loads(text)
    except RecursionError:
        raise JSONProblem("-", "JSON nested too deeply to read") from None


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]" if path != "-" else f"[{key}]"
    return f"{path}.{key}" if path != "-" else str(key)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def scan(value: Any, path: str = "-", *, max_depth: int = MAX_DEPTH) -> list[JSONProblem]:
    """Every integer outside 64 bits, lone surrogate (in keys and strings) and nesting deeper
    than `max_depth`, each with its field path (e.g. `valid_paths[2].path_1`)."""
    out: list[JSONProblem] = []
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        v, where, depth = stack.pop()
        if depth > max_depth:
            out.append(JSONProblem(where, f"nested more than {max_depth} levels deep"))
            continue
        if isinstance(v, bool) or v is None or isinstance(v, float):
            continue
        if isinstance(v, int):
            if not INT64_MIN <= v <= INT64_MAX:
                out.append(
                    JSONProblem(
                        where,
                        f"integer {str(v)[:30]}"
                        f"{'...' if len(str(v)) > 30 else ''} does not fit in "
                        "64 bits (the graph's integer type)",
                    )
                )
        elif isinstance(v, str):
            if _has_surrogate(v):
                out.append(
                    JSONProblem(
                        where,
                        "text holds a lone UTF-16 surrogate (\\ud800-"
                        "\\udfff escape), which is not Unicode text",
                    )
                )
        elif isinstance(v, dict):
            for k, item in reversed(list(v.items())):
                if _has_surrogate(k):
                    out.append(JSONProblem(where, f"key {k!r} holds a lone UTF-16 surrogate"))
                    continue
                stack.append((item, _child(where, k), depth + 1))
        elif isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                stack.append((v[i], _child(where, i), depth + 1))
    return out
