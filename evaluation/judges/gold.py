"""Gold labels for judges: answers with a label for every valid path of their question.

Format (JSON lines, documented in docs/judge-gold-format.md): `answer_id`, `question_id` (the
question's `id` in the graph), optional `domain` (needed only when two domains share an id and
neither the path names nor the imported/built origin tell them apart, see `question_of`),
optional `style`, `kind` (natural/constructed), `setting`, `answer`, `present` ({path name:
true/false} for every valid path), optional `confidence` and `annotators` (each annotator's
labels). A bad file is refused whole with `file:line:field: problem`; nothing is judged.
"""

from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path

from pydantic import BaseModel

from evaluation.judges.gold_kinds import KINDS, GoldKind, kind_of_style, setting_of_style
from evaluation.models import EvalQuestion, Setting
from evaluation.runs.jsonl_rows import (
    Bad,
    JsonlRows,
    answer_text,
    question_of,
    questions_by_id,
)
from evaluation.runs.questions import EvalInputError

SETTINGS = [s.value for s in Setting]


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
    kind: GoldKind = "unknown"
    setting: str | None = None  # the run setting the answer stands for (None: none)
    answer: str
    present: dict[str, bool]  # path name -> gold label
    confidence: str | None = None
    annotators: list[dict[str, bool]] = []
    line: int

    @property
    def hop(self) -> int:
        return self.question.hop


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _named_like(keys: set[str], question: EvalQuestion) -> bool:
    """A gold line fits a question whose valid paths carry exactly the line's path names."""
    return {p.name for p in question.paths if p.name} == keys


def _labels(value: object, names: list[str], ref: str, field: str, bad: Bad) -> bool:
    """`value` is {path name: bool} with exactly the question's path names; problems to `bad`."""
    if not isinstance(value, dict) or not value:
        bad(field, "missing (an object {path name: true/false})")
        return False
    ok = True
    for key, label in value.items():
        if key not in names:
            ok = False
            bad(
                f"{field}.{key}",
                f"unknown path name for {ref} (its paths: {', '.join(names) or 'none named'})",
            )
        elif not isinstance(label, bool):
            ok = False
            bad(f"{field}.{key}", f"label must be true or false, got {label!r}")
    missing = [m for m in names if m not in value]
    if missing:
        ok = False
        bad(field, f"missing labels for path(s) {', '.join(missing)} of {ref}")
    return ok


def _kind(row: dict, style: str, default: GoldKind | None, bad: Bad) -> GoldKind:
    declared = row.get("kind")
    if declared is not None:
        if declared not in KINDS[:2]:
            bad("kind", f"must be natural or constructed, got {declared!r}")
            return "unknown"
        if default is not None and declared != default:
            bad("kind", f"declared {declared}, but --gold-kind {default} was given")
        return declared
    return default or kind_of_style(style)


def load_gold(
    path: Path, questions: list[EvalQuestion], kind: GoldKind | None = None
) -> list[GoldAnswer]:
    """Parse and check a gold file against the questions in the graph (all problems at once).
    `kind`: the kind of answers of lines that declare none (else inferred from the style)."""
    rows = JsonlRows(path, GoldFileError)
    by_id = questions_by_id(questions)
    out: list[GoldAnswer] = []
    seen: dict[str, int] = {}
    for n, row, bad in rows:
        aid = row.get("answer_id")
        if not isinstance(aid, str) or not aid.strip():
            bad("answer_id", "missing (a non-empty string)")
        elif aid in seen:
            bad("answer_id", f"duplicate of line {seen[aid]}")
        else:
            seen[aid] = n
        answer = answer_text(
            row, bad, "missing (the answer text)", "empty: a gold answer needs its text"
        )
        style = row.get("style", "unspecified")
        if not isinstance(style, str) or not style.strip():
            bad("style", "must be a non-empty string when given")
        conf = row.get("confidence")
        if conf is not None and not isinstance(conf, str):
            bad("confidence", "must be a string when given")
        keys = set(row["present"]) if isinstance(row.get("present"), dict) else set()
        q = question_of(row, by_id, bad, fits=partial(_named_like, keys))
        present = row.get("present")
        names = [p.name for p in q.paths if p.name] if q is not None else []
        if q is None:
            if not isinstance(present, dict) or not present:
                bad("present", "missing (an object {path name: true/false})")
        else:
            _labels(present, names, q.ref, "present", bad)
        annotators = row.get("annotators", [])
        if not isinstance(annotators, list):
            bad("annotators", "must be a list of {path name: true/false} objects when given")
            annotators = []
        elif q is not None:
            for i, labels in enumerate(annotators):
                _labels(labels, names, q.ref, f"annotators[{i}]", bad)
        setting = row.get("setting")
        if setting is not None and setting not in SETTINGS:
            bad("setting", f"must be one of {', '.join(SETTINGS)} when given, got {setting!r}")
        style_name = style.strip() if isinstance(style, str) else ""
        gold_kind = _kind(row, style_name, kind, bad)
        if rows.line_ok and q is not None:
            out.append(
                GoldAnswer(
                    answer_id=aid,
                    question=q,
                    style=style_name,
                    kind=gold_kind,
                    setting=setting or setting_of_style(style_name),
                    answer=answer,
                    present=present,
                    confidence=conf,
                    annotators=annotators,
                    line=n,
                )
            )
    rows.finish(bool(out), "no gold answers in the file")
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
