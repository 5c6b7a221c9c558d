"""JSON-lines input read one way for every importer, and the one problem type.

`Problem` is what every reader reports about a line (`file:line:field: message`; PERSPECTRA
inputs add the topic). `JsonlRows` yields the JSON-object lines of a file under the
importer-wide rules (kg.input_rules: BOM skipped, non-UTF-8 refused by line; kg.json_checks:
what the graph cannot store), gathering problems instead of stopping at the first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kg import json_checks
from kg.input_rules import decode_lines

Bad = Callable[[str, str], None]


class Problem(BaseModel):
    """One error or warning about an input line."""

    model_config = ConfigDict(frozen=True)

    file: str = ""  # empty where the error that carries the problem names the file
    line: int | None  # 1-based; 0 or None when it concerns the whole file
    field: str = "-"
    message: str
    # PERSPECTRA inputs: the topic the line is about (left out of dumps where there is none)
    topic: str | None = Field(default=None, exclude_if=lambda v: v is None)

    @classmethod
    def at(cls, line: int | None, field: str, message: str, topic: str | None = None) -> Problem:
        return cls(line=line, field=field, message=message, topic=topic)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.field}: {self.message}"


class JsonlRows:
    """The object lines of `path`; problems (`file:line:field: problem` texts) gather in
    `problems` (nothing is dropped). `error` makes the exception for an unreadable file."""

    def __init__(self, path: Path, error: Callable[[list[str]], Exception]) -> None:
        self.path = path
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise error([f"{path}:0:-: cannot read: {exc}"]) from exc
        self.lines, self.problems = decode_lines(path, data)
        self.error = error
        self._line_start = 0  # problems before the current line's own checks

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any], Bad]]:
        for n, raw in enumerate(self.lines, start=1):
            if raw is None or not raw.strip():
                continue  # a non-UTF-8 line is already a problem

            def bad(field: str, problem: str, n: int = n) -> None:
                self.problems.append(
                    str(Problem(file=str(self.path), line=n, field=field, message=problem))
                )

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
            self._line_start = len(self.problems)
            yield n, row, bad

    @property
    def line_ok(self) -> bool:
        """No problem reported on the current line (so far)."""
        return len(self.problems) == self._line_start

    def finish(self, found: bool, nothing: str) -> None:
        """Raise `error` with every problem of the file (`nothing` when no line was `found`)."""
        if not self.problems and not found:
            self.problems.append(f"{self.path}:1:-: {nothing}")
        if self.problems:
            raise self.error(self.problems)
