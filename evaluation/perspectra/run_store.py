"""PERSPECTRA runs in the graph: a Run node, one Answer per task item, metrics on the Run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from evaluation.perspectra.metrics import TaskScores
from evaluation.perspectra.scoring import is_correct, parse_for, score
from kg import __version__, runs
from kg.errors import StoreError
from kg.ids import content_uid, task_answer_uid
from kg.runs import RunStatus
from kg.store import Store
from kg.task_items import TaskItem

if TYPE_CHECKING:
    import neo4j


class TaskRunSpec(BaseModel):
    """What identifies a PERSPECTRA task run: the same spec again resumes the same Run."""

    model_config = ConfigDict(populate_by_name=True)

    task: str
    task_set: str = Field(alias="build")  # stored (and hashed into the uid) as `build`
    model: str  # a model name, or a baseline name such as `baseline:centroid`
    strategy: str  # 'llm' | 'baseline'
    prompt_hash: str | None = None
    config: dict[str, Any] = {}

    @property
    def uid(self) -> str:
        return content_uid("Run", "perspectra", self.model_dump(by_alias=True))


def start_run(store: Store, spec: TaskRunSpec) -> str:
    runs.start_run(
        store,
        spec.uid,
        "perspectra",
        {
            "models": [spec.model],
            "roles": {"responder": spec.model},
            "setting": spec.task,
            "strategy": spec.strategy,
            "build": spec.task_set,
            "prompt_hashes": {"prompt": spec.prompt_hash} if spec.prompt_hash else {},
            "config": spec.config,
            "version": __version__,
        },
    )
    return spec.uid


def answered(store: Store, run_uid: str) -> dict[str, str | None]:
    return {r["item_uid"]: r["text"] for r in _answer_rows(store, run_uid)}


def _answer_rows(store: Store, run_uid: str) -> list[dict[str, Any]]:
    return store.read("perspectra/run_answers", run_uid=run_uid)


def store_answers(
    store: Store,
    run_uid: str,
    items: list[TaskItem],
    replies: list[str],
    usage: list[dict[str, Any]] | None = None,
) -> int:
    rows = []
    for k, (item, text) in enumerate(zip(items, replies, strict=True)):
        p = parse_for(item, text)
        rows.append(
            {
                "item_uid": item.uid,
                "uid": task_answer_uid(run_uid, item.uid),
                "props": {
                    "text": text,
                    "parsed": p.value,
                    "valid": p.valid,
                    "error": p.error,
                    "correct": is_correct(item, p),
                    **((usage or [{}] * len(items))[k]),
                },
            }
        )
    if not rows:
        return 0

    def work(tx: neo4j.ManagedTransaction) -> None:
        got = Store.tx_query(tx, "perspectra/merge_answers", rows=rows, run_uid=run_uid)
        if not got or got[0]["n"] != len(rows):
            raise StoreError(f"answers: {got[0]['n'] if got else 0} of {len(rows)} linked")

    store.transaction(work)
    return len(rows)


def finish_run(store: Store, spec: TaskRunSpec, items: list[TaskItem]) -> TaskScores:
    """Score every stored answer of the run (resumed parts included) and record the metrics."""
    rows = _answer_rows(store, spec.uid)
    replies = {r["item_uid"]: r["text"] for r in rows}
    done = [i for i in items if i.uid in replies]
    scores = score(done, [parse_for(i, replies[i.uid]) for i in done]) if done else None
    status = RunStatus.done if len(done) == len(items) else RunStatus.partial
    props: dict[str, Any] = {
        "answered": len(done),
        "items": len(items),
        "metrics": scores.summary if scores else {},
        "tokens_in": sum(r["tokens_in"] for r in rows),
        "tokens_out": sum(r["tokens_out"] for r in rows),
    }
    runs.finish_run(store, spec.uid, status, props)
    return scores or TaskScores(summary={"n": 0}, per_item={})
