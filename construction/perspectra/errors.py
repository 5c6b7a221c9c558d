"""Input errors that name the file, line, topic, field and problem."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError


@dataclass(frozen=True)
class Problem:
    line: int | None
    field: str
    problem: str
    topic: str | None = None

    def render(self, file: Path | str) -> str:
        where = f"{file}" + (f":{self.line}" if self.line is not None else "")
        about = f" topic {self.topic!r}" if self.topic else ""
        return f"{where}:{about} field {self.field!r}: {self.problem}"


class PerspectraInputError(InputError):
    """Raised before anything is written; carries every problem found (first 50 shown)."""

    def __init__(self, file: Path | str, problems: list[Problem]) -> None:
        self.file = str(file)
        self.problems = problems
        shown = [p.render(file) for p in problems[:50]]
        more = len(problems) - len(shown)
        tail = [f"... and {more} more problems"] if more > 0 else []
        super().__init__(
            f"{len(problems)} problem(s) in {file}, nothing written:\n" + "\n".join(shown + tail)
        )
