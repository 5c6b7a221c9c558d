"""Gold labels for judges: answers with a label for every valid path of their question.

Format (JSON lines, documented in docs/judge-gold-format.md): `answer_id`, `question_id` (the
question's `id` in the graph), optional `domain` (needed only when two domains share an id),
optional `style`, `answer`, `present` ({path name: true/false} for every valid path), optional
`confidence`. A bad file is refused whole with `file:line:field: problem`; nothing is judged.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel

from evaluation.jsonl_rows import JsonlRows, question_of, questions_by_id
from evaluation.models import EvalQuestion
from evaluation.questions import EvalInputError
from kg.input_rules import blank


class GoldFileError(EvalInputError):
    """A gold file that cannot be used: every problem as file:line:field: problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__("\n".join(problems[:20]) + more)


class GoldAnswer(BaseModel):
    answer_id: str
    question: EvalQuestion
    style: str
    answer: str
    present: dict[str, bool]  # path name -> gold label
    confidence: str | None = None
    line: int

    @property
    def hop(self) -> int:
        return self.question.hop


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_gold(path: Path, questions: list[EvalQuestion]) -> list[GoldAnswer]:
    """Parse and check a gold file against the questions in the graph (all problems at once)."""
    rows = JsonlRows(path, GoldFileError)
    by_id = questions_by_id(questions)
    problems = rows.problems
    out: list[GoldAnswer] = []
    seen: dict[str, int] = {}
    for n, row, bad in rows:
        before = len(problems)
        aid = row.get("answer_id")
        if not isinstance(aid, str) or not aid.strip():
            bad("answer_id", "missing (a non-empty string)")
        elif aid in seen:
            bad("answer_id", f"duplicate of line {seen[aid]}")
        else:
            seen[aid] = n
        answer = row.get("answer")
        if not isinstance(answer, str):
            bad("answer", "missing (the answer text)")
        elif blank(answer):
            bad("answer", "empty: a gold answer needs its text")
        style = row.get("style", "unspecified")
        if not isinstance(style, str) or not style.strip():
            bad("style", "must be a non-empty string when given")
        conf = row.get("confidence")
        if conf is not None and not isinstance(conf, str):
            bad("confidence", "must be a string when given")
        q = question_of(row, by_id, bad)
        present = row.get("present")
        if not isinstance(present, dict) or not present:
            bad("present", "missing (an object {path name: true/false})")
        elif q is not None:
            names = [p.name for p in q.paths if p.name]
            for key, value in present.items():
                if key not in names:
                    bad(
                        f"present.{key}",
                        f"unknown path name for {q.ref} "
                        f"(its paths: {', '.join(names) or 'none named'})",
                    )
                elif not isinstance(value, bool):
                    bad(f"present.{key}", f"label must be true or false, got {value!r}")
            missing = [m for m in names if m not in present]
            if missing:
                bad("present", f"missing labels for path(s) {', '.join(missing)} of {q.ref}")
        if len(problems) == before and q is not None:
            out.append(
                GoldAnswer(
                    answer_id=aid,
                    question=q,
                    style=style.strip(),
                    answer=answer,
                    present=present,
                    confidence=conf,
                    line=n,
                )
            )
    if not problems and not out:
        problems.append(f"{path}:1:-: no gold answers in the file")
    if problems:
        raise GoldFileError(problems)
    return out


def first_answers(items: list[GoldAnswer], limit: int | None) -> list[GoldAnswer]:
    """At most `limit` gold answers, taken round robin over the questions in file order (the
    first answer of every question, then the second...), so a small bound still spans several
    questions; the whole file when `limit` is None."""
    if limit is None or limit >= len(items):
        return list(items)
    by_question: dict[str, list[GoldAnswer]] = {}
    for g in items:
        by_question.setdefault(g.question.uid, []).append(g)
    out: list[GoldAnswer] = []
    rank = 0
    while len(out) < limit:
        out += [qs[rank] for qs in by_question.values() if rank < len(qs)][: limit - len(out)]
        rank += 1
    return sorted(out, key=lambda g: g.line)
