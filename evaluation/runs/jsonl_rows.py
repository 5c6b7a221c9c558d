"""Reading the JSON-lines files users give the evaluation (gold labels, answers from another
harness): every JSON-object line with a `bad(field, problem)` that records
`file:line:field: problem`, and the lookup of a row's question in the graph."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evaluation.models import EvalQuestion
from evaluation.runs.questions import EvalInputError
from kg import json_checks
from kg.input_rules import decode_lines, parse_id

Bad = Callable[[str, str], None]


class JsonlRows:
    """The object lines of `path`; problems gather in `problems` (nothing is dropped)."""

    def __init__(self, path: Path, error: Callable[[list[str]], EvalInputError]) -> None:
        self.path = path
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise error([f"{path}:0:-: cannot read: {exc}"]) from exc
        # the importer-wide rules (kg.input_rules): a leading BOM skipped, non-UTF-8 refused
        self.lines, self.problems = decode_lines(path, data)

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any], Bad]]:
        for n, raw in enumerate(self.lines, start=1):
            if raw is None or not raw.strip():
                continue  # a non-UTF-8 line is already a problem

            def bad(field: str, problem: str, n: int = n) -> None:
                self.problems.append(f"{self.path}:{n}:{field}: {problem}")

            try:
                row = json_checks.loads(raw)
            except json.JSONDecodeError as exc:
                bad("-", f"not JSON ({exc.msg} at column {exc.colno})")
                continue
            except json_checks.JSONProblem as exc:  # nested too deeply to decode
                bad(exc.field, exc.problem)
                continue
            if not isinstance(row, dict):
                bad("-", "expected a JSON object")
                continue
            if found := json_checks.scan(row):  # lone surrogates, ints beyond 64 bits, depth
                for p in found:
                    bad(p.field, p.problem)
                continue
            yield n, row, bad


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
