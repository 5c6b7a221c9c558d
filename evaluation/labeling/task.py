"""Annotation tasks: a stratified sample of a run's answers, one JSON line per answer.

Each line holds what an annotator needs and nothing more: the question, the answer, the
concepts' summaries and, per valid path, its edges with their stored reasons. The judge's
verdicts are used to stratify the sample (by hop, domain and verdict outcome) but are never
written, so the labeling is blind. Format: docs/judge-gold-format.md ("Annotation tasks").
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from evaluation.judges.gold import SETTINGS, GoldFileError
from evaluation.models import EvalQuestion
from evaluation.reporting.html_report import outcome
from evaluation.runs.jsonl_rows import JsonlRows
from evaluation.runs.record import EvalRunRecord
from kg.store import Store


class TaskFileError(GoldFileError):
    """A task or label file that cannot be used (file:line:field: problem)."""


class TaskEdge(BaseModel):
    source: str
    label: str
    target: str
    reason: str


class TaskPath(BaseModel):
    name: str
    edges: list[TaskEdge]


class TaskItem(BaseModel):
    """One answer to label (the line of a task file)."""

    task: str  # the run the answers come from
    answer_id: str
    question_id: int
    domain: str
    hop: int
    style: str  # what produced the answer (the run's responder)
    kind: str = "natural"  # a model's answers are natural; an offline baseline's constructed
    setting: str | None = None
    stratum: str  # hop/domain/judge outcome the answer was drawn from (not the verdicts)
    question: str
    answer: str
    concepts: dict[str, str]  # concept key -> summary
    paths: list[TaskPath]


def _task_item(
    run: EvalRunRecord, q: EvalQuestion, answer_uid: str, text: str, stratum: str
) -> TaskItem:
    roles = run.roles
    keys = {k for p in q.paths for k in p.keys}
    style = str(roles.get("responder") or run.source_run or run.uid)
    return TaskItem(
        task=run.uid,
        answer_id=answer_uid,
        question_id=q.id,
        domain=q.domain,
        hop=q.hop,
        style=style,
        kind="constructed" if style.startswith("baseline:") else "natural",
        setting=run.setting if run.setting in SETTINGS else None,
        stratum=stratum,
        question=q.text,
        answer=text,
        concepts={k: q.concepts.get(k) or "" for k in sorted(keys)},
        paths=[
            TaskPath(
                name=p.name or f"path_{i}",
                edges=[
                    TaskEdge(source=s, label=lab, target=t, reason=r)
                    for (s, lab, t), r in zip(p.edges(), p.edge_evidence(), strict=True)
                ],
            )
            for i, p in enumerate(q.paths)
        ],
    )


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many to draw per stratum: proportional to its size (largest remainder), at least
    one from every stratum while n allows, never more than it holds."""
    n = min(n, sum(sizes.values()))
    keys = sorted(sizes)
    take = {k: 0 for k in keys}
    if n >= len(keys):
        take = {k: 1 for k in keys}
    left = n - sum(take.values())
    while left > 0:
        room = {k: sizes[k] - take[k] for k in keys if sizes[k] > take[k]}
        total = sum(sizes[k] for k in room)
        quota = {k: left * sizes[k] / total for k in room}
        add = {k: min(int(quota[k]), room[k]) for k in room}
        if not sum(add.values()):  # hand out the remainder, largest fraction first
            k = max(room, key=lambda k: (quota[k] - int(quota[k]), sizes[k], k))
            add = {k: 1}
        for k, a in add.items():
            take[k] += a
        left -= sum(add.values())
    if n < len(keys):  # fewer than strata: the largest strata, one each
        for k in sorted(keys, key=lambda k: (-sizes[k], k))[:n]:
            take[k] = 1
    return take


def sample_run(store: Store, run_id: str, n: int, seed: int = 0) -> list[TaskItem]:
    """A stratified sample of `n` of a run's judged answers (first samples of the original
    questions), by hop, domain and the judge's outcome; shuffled so strata do not cluster."""
    from evaluation.runs.questions import load_questions
    from evaluation.scoring.question_scores import run_scores

    run, scores = run_scores(store, run_id)
    texts = {r["answer"]: r["text"] for r in store.query("eval/run_answer_texts", uid=run_id)}
    questions, _ = load_questions(store, uids=sorted({s.question for s in scores}))
    by_uid = {q.uid: q for q in questions}
    strata: dict[str, list[Any]] = {}
    for s in sorted(scores, key=lambda s: s.answer):
        q = by_uid.get(s.question)
        if q is None or s.answer not in texts:
            continue
        verdict = outcome(q.target_uids, s.present)
        strata.setdefault(f"{s.hop}-hop/{s.domain}/{verdict}", []).append((s, q))
    rng = random.Random(seed)
    picked = []
    for key, k in allocate({k: len(v) for k, v in strata.items()}, n).items():
        for s, q in rng.sample(strata[key], k):
            picked.append(_task_item(run, q, s.answer, str(texts[s.answer] or ""), key))
    rng.shuffle(picked)
    return picked


def write_task(items: Sequence[TaskItem], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(i.model_dump_json() + "\n" for i in items), encoding="utf-8")
    return path


def load_task(path: Path) -> list[TaskItem]:
    """Parse a task file; every problem as file:line:field: problem."""
    rows = JsonlRows(path, TaskFileError)
    out: list[TaskItem] = []
    seen: dict[str, int] = {}
    for n, row, bad in rows:
        try:
            item = TaskItem.model_validate(row)
        except ValidationError as exc:
            for e in exc.errors():
                bad(".".join(str(x) for x in e["loc"]) or "-", e["msg"])
            continue
        if item.answer_id in seen:
            bad("answer_id", f"duplicate of line {seen[item.answer_id]}")
            continue
        seen[item.answer_id] = n
        names = [p.name for p in item.paths]
        if not names:
            bad("paths", "no path to label")
        elif len(set(names)) < len(names):
            bad("paths", "path names repeat")
        for i, p in enumerate(item.paths):
            if not p.edges:
                bad(f"paths[{i}].edges", "a path needs at least one edge")
        out.append(item)
    rows.finish(bool(out), "no answers in the task file")
    return out
