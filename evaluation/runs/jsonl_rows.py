"""The JSON-lines files users give the evaluation (gold labels, answers from another harness)
are read by kg.jsonl (the one reader); here: the lookup of a row's question in the graph."""

from __future__ import annotations

from collections.abc import Callable

from evaluation.models import EvalQuestion
from kg.input_rules import blank, parse_id
from kg.jsonl import Bad, JsonlRows

__all__ = ["Bad", "JsonlRows", "answer_text", "question_of", "questions_by_id"]


def answer_text(row: dict, bad: Bad, missing: str, empty: str) -> str:
    """The row's `answer` text; `missing` / `empty` go to `bad` when it is no string / blank
    (then the line is not kept and the "" returned is never used)."""
    text = row.get("answer")
    if not isinstance(text, str):
        bad("answer", missing)
        return ""
    if blank(text):
        bad("answer", empty)
    return text


def questions_by_id(questions: list[EvalQuestion]) -> dict[int, list[EvalQuestion]]:
    by_id: dict[int, list[EvalQuestion]] = {}
    for question in questions:
        by_id.setdefault(question.id, []).append(question)
    return by_id


def question_of(
    row: dict,
    by_id: dict[int, list[EvalQuestion]],
    bad: Bad,
    fits: Callable[[EvalQuestion], bool] | None = None,
) -> EvalQuestion | None:
    """The row's question (`question_id`, with `domain` where ids repeat across domains).

    Files made for the published benchmark (the shipped gold files) carry no `domain`: where
    the id repeats across domains, the questions the row `fits` (e.g. whose path names are
    the row's) are kept, then the imported ones (a published file refers to published
    questions, never to a draft built beside them). Still several: an error asking for
    `domain`."""
    qid, problem = parse_id(row.get("question_id"))
    if qid is None:
        bad("question_id", f"{problem} (the question's id in the graph)")
        return None
    found = by_id.get(qid, [])
    domain = row.get("domain")
    if domain is not None:
        if not isinstance(domain, str):
            bad("domain", "must be a string when given")
            return None
        found = [q for q in found if q.domain == domain]
    if not found:
        where = f" in domain {domain!r}" if domain else ""
        bad(
            "question_id",
            f"unknown question {qid}{where}: not in the graph (import its "
            "questions first, e.g. `kg import perspectivebench FILE`)",
        )
        return None
    if len(found) > 1 and fits is not None:
        found = [q for q in found if fits(q)] or found
    if len(found) > 1:
        found = [q for q in found if q.imported] or found
    if len(found) > 1:
        bad(
            "question_id",
            f"question {qid} exists in domains "
            f"{', '.join(sorted(q.domain for q in found))}: add a `domain` field",
        )
        return None
    return found[0]
