"""Read JSON / JSONL input strictly, keeping the line where each top-level record starts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from construction.perspectra.errors import PerspectraInputError, Problem
from kg import json_checks
from kg.input_rules import strip_bom
from kg.jsonl import Wording, json_lines


def read_utf8(path: Path) -> str:
    data = strip_bom(path.read_bytes())  # the importer-wide BOM rule (kg.input_rules)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise PerspectraInputError(
            path, [Problem.at(line, "<file>", f"not UTF-8 (byte {e.start}: {e.reason})")]
        ) from None


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _checked(path: Path, items: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    """Records the graph can store; the others (64-bit overflow, lone surrogates) are collected
    and refused together at the end. A file with no record at all is refused too."""
    problems: list[Problem] = []
    seen = 0
    for line, value in items:
        seen += 1
        found = json_checks.scan(value)
        problems += [Problem.at(line, p.field, p.problem) for p in found]
        if not found:
            yield line, value
    if problems:
        raise PerspectraInputError(path, problems)
    if seen == 0:
        raise PerspectraInputError(
            path, [Problem.at(None, "<file>", "no records: the file holds nothing to import")]
        )


def json_list_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, value) for each element of a top-level JSON array (an empty one is refused)."""
    return _checked(path, _json_list_records(path))


def _json_list_records(path: Path) -> Iterator[tuple[int, Any]]:
    text = read_utf8(path)
    decoder = json.JSONDecoder()
    ws = " \t\r\n"
    i = 0
    n = len(text)

    def skip(j: int) -> int:
        while j < n and text[j] in ws:
            j += 1
        return j

    def bad(pos: int, problem: str) -> PerspectraInputError:
        return PerspectraInputError(path, [Problem.at(_line_of(text, pos), "<file>", problem)])

    i = skip(i)
    if i >= n or text[i] != "[":
        raise bad(i, "expected a JSON list of topics at the top level")
    i = skip(i + 1)
    if i < n and text[i] == "]":
        return
    while True:
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise bad(e.pos, f"invalid JSON: {e.msg}") from None
        except RecursionError:
            raise bad(i, "JSON nested too deeply to read") from None
        yield _line_of(text, i), value
        i = skip(end)
        if i < n and text[i] == ",":
            i = skip(i + 1)
            continue
        if i < n and text[i] == "]":
            if skip(i + 1) != n:
                raise bad(i + 1, "unexpected content after the top-level list")
            return
        raise bad(i, "expected ',' or ']' between topics")


def jsonl_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, value) per non-blank line of a JSON-lines file (a file with none is refused)."""
    return _checked(path, _jsonl_records(path))


# PERSPECTRA's wording of the shared line problems (kg.jsonl), pinned by its tests: any JSON
# value, the graph checks left to `_checked` (shared with the list reader)
_WORDING = Wording(
    not_json="invalid JSON: {msg} (column {col})",
    json_field="<line>",
    objects_only=False,
    scan=False,
)


def _jsonl_records(path: Path) -> Iterator[tuple[int, Any]]:
    """Stops at the first line that is not JSON. The whole file is decoded first (its UTF-8
    problem comes before any line's) and split as `str.splitlines` does."""
    for line in json_lines(read_utf8(path).splitlines(), _WORDING):
        if line.problems:
            raise PerspectraInputError(path, line.problems[:1])
        if line.ok:
            yield line.n, line.value


def records(path: Path) -> Iterator[tuple[int, Any]]:
    """A `.jsonl` file line by line, anything else as one JSON list."""
    if path.suffix.lower() in {".jsonl", ".ndjson"}:
        return jsonl_records(path)
    return json_list_records(path)
