"""Input errors that name the file, line, topic, field and problem."""

from __future__ import annotations

from pathlib import Path

from kg.errors import InputError
from kg.jsonl import Problem

__all__ = ["PerspectraInputError", "Problem", "render"]


def render(p: Problem, file: Path | str) -> str:
    """A PERSPECTRA problem as its errors print it: file:line: topic 'T' field 'F': message."""
    where = f"{file}" + (f":{p.line}" if p.line is not None else "")
    about = f" topic {p.topic!r}" if p.topic else ""
    return f"{where}:{about} field {p.field!r}: {p.message}"


class PerspectraInputError(InputError):
    """Raised before anything is written; carries every problem found (first 50 shown)."""

    def __init__(self, file: Path | str, problems: list[Problem]) -> None:
        self.file = str(file)
        self.problems = problems
        shown = [render(p, file) for p in problems[:50]]
        more = len(problems) - len(shown)
        tail = [f"... and {more} more problems"] if more > 0 else []
        super().__init__(
            f"{len(problems)} problem(s) in {file}, nothing written:\n" + "\n".join(shown + tail)
        )
