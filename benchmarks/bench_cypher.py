"""Cypher that only the benchmarks run (synthetic data, clean-up), kept next to them in
`benchmarks/bench_queries/` so the product's `cypher/` package ships only what the product uses.
(Not `benchmarks/cypher/`: a script run from benchmarks/ has that folder first on sys.path, and
as a namespace package it shadowed the product's `cypher` package: "no Cypher file named ...".)"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from kg.store import Store, chunked

ROOT = Path(__file__).resolve().parent / "bench_queries"


@cache
def load(name: str) -> str:
    """Text of `benchmarks/bench_queries/<name>.cypher`."""
    path = ROOT / f"{name}.cypher"
    if not path.is_file():
        raise FileNotFoundError(f"no benchmark query {name!r} (expected {path})")
    return path.read_text(encoding="utf-8").strip()


def run_auto_commit(store: Store, name: str, **params: Any) -> None:
    """For `CALL ... IN TRANSACTIONS`, which needs an auto-commit transaction."""
    with store.session() as s:
        s.run(load(name), params).consume()


def write_rows(store: Store, name: str, rows: list[dict[str, Any]], size: int = 5000) -> int:
    """`UNWIND $rows` in batches, one transaction each."""
    for batch in chunked(rows, size):
        store.run_text(load(name), rows=batch)
    return len(rows)
