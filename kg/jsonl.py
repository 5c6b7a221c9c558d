"""JSON-lines input read one way for every importer, and the one problem type.

`Problem` is what every reader reports about a line (`file:line:field: message`; PERSPECTRA
inputs add the topic). `json_lines` is the one line reader: it turns each line into a
`JsonLine` (the parsed value, or its problems) under the importer-wide rules (kg.input_rules:
BOM skipped, non-UTF-8 refused by line; kg.json_checks: what the graph cannot store). What
differs between readers -- objects only or any value, the wording their tests pin -- is a
`Wording`; whether to stop at the first problem is the caller's (it raises or gathers).
`JsonlRows` yields the JSON-object lines of a file, gathering problems instead of stopping.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic import Field as ModelField

from kg import json_checks
from kg.input_rules import decode_line, decode_lines

Bad = Callable[[str, str], None]


class Problem(BaseModel):
    """One error or warning about an input line."""

    model_config = ConfigDict(frozen=True)

    file: str = ""  # empty where the error that carries the problem names the file
    line: int | None  # 1-based; 0 or None when it concerns the whole file
    field: str = "-"
    message: str
    # PERSPECTRA inputs: the topic the line is about (left out of dumps where there is none)
    topic: str | None = ModelField(default=None, exclude_if=lambda v: v is None)

    @classmethod
    def at(cls, line: int | None, field: str, message: str, topic: str | None = None) -> Problem:
        return cls(line=line, field=field, message=message, topic=topic)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.field}: {self.message}"


@dataclass(frozen=True)
class Wording:
    """How a reader words and polices the shared line problems (each reader's texts are pinned
    by its tests). Templates: `not_json` {msg} {col}; `not_object` {type}; `not_utf8` {byte}
    {col}; `too_long` {size} {limit}."""

    not_json: str = "not JSON ({msg} at column {col})"
    not_object: str = "expected a JSON object"
    not_utf8: str = "not valid UTF-8: byte 0x{byte:02x} at column {col} (save the file as UTF-8)"
    too_long: str = "line is {size:,} bytes; the limit is {limit:,} bytes"
    json_field: str | None = None  # field of a line that is not JSON; None: "-" or json_checks'
    objects_only: bool = True  # a line must hold a JSON object (else any JSON value)
    scan: bool = True  # refuse what the graph cannot store (kg.json_checks.scan) here


JSONL = Wording()  # the importers' wording (gold, answers, labeling tasks, agreement)


@dataclass
class JsonLine:
    """One line as read: its text (None when it is not UTF-8 or too long), and its value or
    the problems that kept it from one."""

    n: int
    text: str | None
    value: Any = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def blank(self) -> bool:
        return self.text is not None and not self.text.strip()

    @property
    def ok(self) -> bool:
        """A non-blank line whose value was read without a problem."""
        return self.text is not None and not self.blank and not self.problems


def parse_line(n: int, text: str, wording: Wording = JSONL) -> tuple[Any, list[Problem]]:
    """The JSON value of one non-blank line, or None and its problems (line `n`, no file)."""
    try:
        value = json_checks.loads(text)
    except json.JSONDecodeError as exc:
        msg = wording.not_json.format(msg=exc.msg, col=exc.colno)
        return None, [Problem.at(n, wording.json_field or "-", msg)]
    except json_checks.JSONProblem as exc:  # nested too deeply to decode
        return None, [Problem.at(n, wording.json_field or exc.field, exc.problem)]
    if wording.objects_only and not isinstance(value, dict):
        msg = wording.not_object.format(type=type(value).__name__)
        return None, [Problem.at(n, "-", msg)]
    if wording.scan and (found := json_checks.scan(value)):  # surrogates, big ints, depth
        return None, [Problem.at(n, p.field, p.problem) for p in found]
    return value, []


def json_lines(
    lines: Iterable[bytes | str | None],
    wording: Wording = JSONL,
    max_line_bytes: int | None = None,
) -> Iterator[JsonLine]:
    """Every line (numbered from 1, blank ones too) read under the shared rules. A line may come
    as bytes (decoded here, after the length limit), as text, or as None (already refused as
    not UTF-8 by the caller: it carries no problem here)."""
    for n, raw in enumerate(lines, start=1):
        line = JsonLine(n, None)
        if isinstance(raw, bytes):
            line.text, problem = decode_line(
                raw, wording.not_utf8, wording.too_long, max_line_bytes
            )
            if problem:
                line.problems.append(Problem.at(n, "-", problem))
        else:
            line.text = raw
        if line.text is not None and not line.blank:
            line.value, line.problems = parse_line(n, line.text, wording)
        yield line


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
        # non-UTF-8 lines come as None: decode_lines has already reported them, first
        for line in json_lines(self.lines):
            n = line.n

            def bad(field: str, problem: str, n: int = n) -> None:
                self.problems.append(
                    str(Problem(file=str(self.path), line=n, field=field, message=problem))
                )

            for p in line.problems:
                bad(p.field, p.message)
            if not line.ok:
                continue
            self._line_start = len(self.problems)
            yield n, line.value, bad

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
