"""Write built PERSPECTRA task items: one transaction per task set."""

from __future__ import annotations

from neo4j import ManagedTransaction

from kg.errors import StoreError
from kg.store import Store, chunked
from kg.task_items import TaskItem


def write_items(store: Store, items: list[TaskItem], batch_size: int = 500) -> int:
    """MERGE every item and its INCLUDES edges; all of a build lands, or none of it."""

    def work(tx: ManagedTransaction) -> None:
        for batch in chunked(items, batch_size):
            rows = [
                {"uid": i.uid, "props": i.graph_props(), "expansion_uids": i.expansion_uids}
                for i in batch
            ]
            got = Store.tx_query(tx, "perspectra/merge_task_items", rows=rows)
            expected = sum(len(i.expansion_uids) for i in batch)
            if not got or got[0]["n"] != expected:
                raise StoreError(
                    f"task items: {got[0]['n'] if got else 0} of {expected} "
                    "expansions found in the graph; nothing written"
                )

    store.transaction(work)
    return len(items)
