"""TaskItems in the graph (one transaction per build) and as JSONL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from neo4j import ManagedTransaction

from evaluation.perspectra.task_items import TaskItem
from kg.store import Store, StoreError, chunked


def write_items(store: Store, items: list[TaskItem], batch_size: int = 500) -> int:
    """MERGE every item and its INCLUDES edges; all of a build lands, or none of it."""

    def work(tx: ManagedTransaction) -> None:
        for batch in chunked(items, batch_size):
            rows = [{"uid": i.uid, "props": i.graph_props(),
                     "expansion_uids": i.expansion_uids} for i in batch]
            got = Store.tx_query(tx, "perspectra/merge_task_items", rows=rows)
            expected = sum(len(i.expansion_uids) for i in batch)
            if not got or got[0]["n"] != expected:
                raise StoreError(f"task items: {got[0]['n'] if got else 0} of {expected} "
                                 "expansions found in the graph; nothing written")

    store.transaction(work)
    return len(items)


def load_items(store: Store, build: str) -> list[TaskItem]:
    return [TaskItem(**r["item"]) for r in store.read("perspectra/task_items", build=build)]


def list_builds(store: Store) -> list[dict[str, Any]]:
    return store.read("perspectra/task_builds")


def resolve_build(store: Store, task: str, build: str | None) -> str:
    """The named build, or the only/latest-listed build of the task; clear error otherwise."""
    builds = [b for b in list_builds(store) if b["task"] == task]
    if build:
        if not any(b["build"] == build for b in builds):
            raise ValueError(f"no {task} build {build!r}; builds: "
                             f"{[b['build'] for b in builds] or 'none'}")
        return build
    if not builds:
        raise ValueError(f"no {task} items in the graph: run `kg perspectra build-tasks` first")
    if len(builds) > 1:
        raise ValueError(f"several {task} builds, pick one with --build: "
                         f"{[b['build'] for b in builds]}")
    return builds[0]["build"]


def export_jsonl(items: list[TaskItem], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item.model_dump(), ensure_ascii=False) + "\n")
    return len(items)
