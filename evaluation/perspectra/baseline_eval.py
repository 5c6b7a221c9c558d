"""Run the offline baselines over stored builds and record each as a Run (strategy baseline)."""

from __future__ import annotations

from dataclasses import dataclass

from evaluation.perspectra.baselines import (
    BaselineResult,
    Encoder,
    t1_baseline,
    t2_baseline,
    t3_baseline,
)
from evaluation.perspectra.corpus import Corpus
from evaluation.perspectra.metrics import TaskScores
from evaluation.perspectra.run_store import RunSpec, finish_run, start_run, store_answers
from evaluation.perspectra.task_items import TaskItem
from kg.store import Store


@dataclass
class BaselineOutcome:
    spec: RunSpec
    scores: TaskScores
    config: dict[str, object]


def baseline_replies(task: str, items: list[TaskItem], corpus: Corpus,
                     encode: Encoder) -> BaselineResult:
    if task == "t1":
        return t1_baseline(items, corpus, encode)
    if task == "t2":
        return t2_baseline(items, encode)
    return t3_baseline(items, corpus, encode)


def run_baseline(store: Store, task: str, build: str, items: list[TaskItem], corpus: Corpus,
                 encode: Encoder, embedding_model: str) -> BaselineOutcome:
    result = baseline_replies(task, items, corpus, encode)
    config = {**result.config, "embedding_model": embedding_model}
    spec = RunSpec(task=task, build=build, model=result.name, strategy="baseline", config=config)
    start_run(store, spec)
    store_answers(store, spec.uid, items, result.replies)
    return BaselineOutcome(spec, finish_run(store, spec, items), config)
