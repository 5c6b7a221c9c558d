"""Run the offline baselines over stored task sets and record each as a Run (strategy baseline)."""

from __future__ import annotations

from dataclasses import dataclass

from evaluation.perspectra.baselines import (
    BaselineResult,
    Encoder,
    ItemMaker,
    t1_baseline,
    t2_baseline,
    t3_baseline,
)
from evaluation.perspectra.metrics import TaskScores
from evaluation.perspectra.run_store import TaskRunSpec, finish_run, start_run, store_answers
from kg.queries.perspectra_corpus import Corpus
from kg.store import Store
from kg.task_items import TaskItem


@dataclass
class BaselineOutcome:
    spec: TaskRunSpec
    scores: TaskScores
    config: dict[str, object]


def baseline_replies(
    task: str, items: list[TaskItem], corpus: Corpus, encode: Encoder, *, make_items: ItemMaker
) -> BaselineResult:
    if task == "t1":
        return t1_baseline(items, corpus, encode, make_items=make_items)
    if task == "t2":
        return t2_baseline(items, encode)
    return t3_baseline(items, corpus, encode)


def run_baseline(
    store: Store,
    task: str,
    task_set: str,
    items: list[TaskItem],
    corpus: Corpus,
    encode: Encoder,
    embedding_model: str,
    *,
    make_items: ItemMaker,
) -> BaselineOutcome:
    result = baseline_replies(task, items, corpus, encode, make_items=make_items)
    config = {**result.config, "embedding_model": embedding_model}
    spec = TaskRunSpec(
        task=task, task_set=task_set, model=result.name, strategy="baseline", config=config
    )
    start_run(store, spec)
    store_answers(store, spec.uid, items, result.replies)
    return BaselineOutcome(spec, finish_run(store, spec, items), config)
