"""Answers produced by another harness, stored as a run's answers so they can be judged.

JSON lines: `question_id` (the question's `id` in the graph), optional `domain` (when ids repeat
across domains), `answer` (the text), optional `model`, `prompt_tokens`, `completion_tokens`.
Every line is checked before anything is written (`file:line:field: problem`, all at once);
then the run and its answers are written in one transaction. Importing the same file into the
same run again changes nothing (answer uids are hash(run, question), writes MERGE).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from evaluation.judges.gold import GoldFileError, file_hash
from evaluation.models import EvalQuestion
from evaluation.responders.tokens import REGEX_TOKENIZER, count_tokens
from evaluation.runs import store as runs
from evaluation.runs.jsonl_rows import JsonlRows, answer_text, question_of, questions_by_id
from evaluation.runs.questions import EvalInputError
from kg import __version__
from kg import runs as kg_runs
from kg.ids import answer_uid
from kg.runs import RunStatus
from kg.store import Store

if TYPE_CHECKING:
    import neo4j

IMPORTED = "imported"


class AnswerFileError(GoldFileError):
    """An answers file with bad lines (each as file:line:field: problem); nothing written."""


class ImportedAnswer(BaseModel):
    question: EvalQuestion
    text: str
    model: str = ""
    prompt_tokens: int = 0
    tokens: int
    tokens_source: str
    line: int


class ImportSummary(BaseModel):
    run_id: str
    answers: int
    models: list[str]
    new_run: bool


def parse_answers(path: Path, questions: list[EvalQuestion]) -> list[ImportedAnswer]:
    rows = JsonlRows(path, AnswerFileError)
    by_id = questions_by_id(questions)
    out: list[ImportedAnswer] = []
    seen: dict[str, int] = {}
    for n, row, bad in rows:
        q = question_of(row, by_id, bad)
        text = answer_text(
            row,
            bad,
            "missing (the answer text, a string)",
            "empty: an answer with no text cannot be judged",
        )
        model = row.get("model", "")
        if model is None:
            model = ""
        if not isinstance(model, str):
            bad("model", "must be a string when given")
        counts = {}
        for field in ("prompt_tokens", "completion_tokens"):
            value = row.get(field)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                bad(field, f"must be a non-negative integer when given, got {value!r}")
            counts[field] = value
        if q is not None:
            if q.uid in seen:
                bad(
                    "question_id",
                    f"question {q.id} already answered on line {seen[q.uid]}: "
                    "one answer per question and run",
                )
            else:
                seen[q.uid] = n
        if rows.line_ok and q is not None:
            given = counts["completion_tokens"]
            out.append(
                ImportedAnswer(
                    question=q,
                    text=text,
                    model=model,
                    line=n,
                    prompt_tokens=counts["prompt_tokens"] or 0,
                    tokens=given if given is not None else count_tokens(str(text)),
                    tokens_source="usage" if given is not None else REGEX_TOKENIZER,
                )
            )
    rows.finish(bool(out), "no answers in the file")
    return out


def import_answers(
    store: Store, path: Path, run_id: str, questions: list[EvalQuestion]
) -> ImportSummary:
    """Check the whole file, then write the run and every answer in one transaction."""
    items = parse_answers(path, questions)
    digest = file_hash(path)
    existing = runs.get_run(store, run_id, required=False)
    if existing is not None:
        stored = existing.props()
        if stored.get("responder_kind") != IMPORTED or stored.get("answers_hash") != digest:
            raise EvalInputError(
                f"run {run_id!r} already exists and was not made by importing this file; "
                "choose another --run-id"
            )
    models = sorted({a.model for a in items if a.model})
    who = f"imported:{', '.join(models) or path.name}"
    props = {
        "models": models,
        "setting": IMPORTED,
        "strategy": IMPORTED,
        "judge": None,
        "gt": "evidence",
        "roles": {"responder": who, "judge": None},
        "prompt_hashes": {},
        "identity": {"imported": str(path), "sha256": digest},
        "version": __version__,
        "source_run": None,
        "responder_kind": IMPORTED,
        "answers_file": str(path),
        "answers_hash": digest,
        "config": {"answers_file": str(path)},
    }
    rows = [
        {
            "uid": answer_uid(run_id, a.question.uid),
            "question": a.question.uid,
            "text": a.text,
            "tokens": a.tokens,
            "tokens_source": a.tokens_source,
            "prompt_tokens": a.prompt_tokens,
            "context": [],
            "model": a.model,
        }
        for a in items
    ]
    stamp = kg_runs.now()

    def work(tx: neo4j.ManagedTransaction) -> None:
        Store.tx_query(
            tx, "core/run_start", **kg_runs.start_params(run_id, "eval", props, at=stamp)
        )
        Store.tx_query(tx, "eval/write_answers", rows=rows, run=run_id, now=stamp)
        Store.tx_query(
            tx,
            "eval/run_add_usage",
            uid=run_id,
            tokens_in=0 if existing else sum(a.prompt_tokens for a in items),
            tokens_out=0 if existing else sum(a.tokens for a in items),
            calls=0,
            cached_calls=0,
            cost=0.0,
        )
        # Answering is done; responder_kind says the answers were imported.
        done = kg_runs.finish_params(run_id, RunStatus.done, {"errors": [], "failed": 0}, at=stamp)
        Store.tx_query(tx, "core/run_finish", **done)

    store.transaction(work)
    return ImportSummary(run_id=run_id, answers=len(items), models=models, new_run=existing is None)
