"""Write import rows in ONE transaction: either every row lands or the graph is unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction
from pydantic import BaseModel

from construction.perspectra.rows import ImportRows
from kg.errors import StoreError
from kg.store import Store, chunked


class IncompleteWrite(StoreError):
    """A batch matched fewer endpoints than it had rows; the transaction is rolled back."""


def _write(tx: ManagedTransaction, name: str, rows: list[dict[str, Any]], size: int) -> None:
    for batch in chunked(rows, size):
        got = Store.tx_query(tx, f"perspectra/{name}", rows=batch)
        n = got[0]["n"] if got else 0
        if n != len(batch):
            raise IncompleteWrite(
                f"perspectra/{name}: {n} of {len(batch)} rows found their "
                "endpoints; nothing written"
            )


def _dump(items: Sequence[BaseModel]) -> list[dict[str, Any]]:
    return [i.model_dump() for i in items]


def write_import(store: Store, rows: ImportRows, batch_size: int | None = None) -> None:
    size = batch_size or store.settings.batch_size
    plan = [
        ("merge_topics", _dump(rows.topics)),
        ("merge_opinions", _dump(rows.opinions)),
        ("merge_comments", _dump(rows.comments)),
        ("merge_candidates", [{"comment_uid": c, "topic_uid": t} for c, t in rows.candidates]),
        ("merge_matches", _dump(rows.matches)),
        ("merge_expansions", _dump(rows.expansions)),
    ]

    def work(tx: ManagedTransaction) -> None:
        for name, items in plan:
            if items:
                _write(tx, name, items, size)

    store.transaction(work)


def graph_counts(store: Store) -> dict[str, int]:
    return store.query("perspectra/counts")[0]


def missing_topics(store: Store, topic_uids: list[str]) -> set[str]:
    found = {r["uid"] for r in store.query("perspectra/topic_uids", uids=topic_uids)}
    return set(topic_uids) - found


def delete_perspectra(store: Store) -> None:
    """Remove every PERSPECTRA node (and the answers of PERSPECTRA runs); nothing else."""
    from kg import cypher_files

    # CALL ... IN TRANSACTIONS needs auto-commit transactions.
    with store.session() as s:
        for name in ("perspectra/delete_run_answers", "perspectra/delete_nodes"):
            s.run(cypher_files.load(name)).consume()
