"""Reading stored PERSPECTRA task items (by task set) and exporting them as JSONL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.store import Store
from kg.task_items import TaskItem


def load_items(store: Store, task_set: str) -> list[TaskItem]:
    return [TaskItem(**r["item"]) for r in store.read("perspectra/task_items", task_set=task_set)]


def list_task_sets(store: Store) -> list[dict[str, Any]]:
    return store.read("perspectra/task_sets")


def resolve_task_set(store: Store, task: str, task_set: str | None) -> str:
    """The named task set, or the task's only one; a clear error otherwise."""
    sets = [s["task_set"] for s in list_task_sets(store) if s["task"] == task]
    if task_set:
        if task_set not in sets:
            raise InputError(f"no {task} task set {task_set!r}; task sets: {sets or 'none'}")
        return task_set
    if not sets:
        raise InputError(f"no {task} items in the graph: run `kg perspectra build-tasks` first")
    if len(sets) > 1:
        raise InputError(f"several {task} task sets, pick one with --task-set: {sets}")
    return sets[0]


def export_jsonl(items: list[TaskItem], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item.model_dump(by_alias=True), ensure_ascii=False) + "\n")
    return len(items)
