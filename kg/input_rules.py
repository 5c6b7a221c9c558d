"""One rule for every importer (PerspectiveBench, chunks, gold labels, answers, PERSPECTRA):

- Bytes: UTF-8. A byte-order mark at the very start of a file is skipped (editors on Windows
  write one; it is not content); any other byte that is not UTF-8 is refused, naming its line
  and column.
- Ids read as numbers (question ids in gold and answer files): an integer, or a string of
  ASCII digits only (`"7"`). `"7_0_3"` (Python's `int()` reads 703), `" 7"`, `"+7"`, `"7.0"`,
  `"٧"` and `true` are refused: an id is never guessed. (A PerspectiveBench line's `id` must
  be a JSON integer; chunk ids are names, kept as written.)
- Texts a record exists for (a question, an answer, a chunk) may not be empty or blank.

Problems are `file:line:field: problem` strings, as every reader reports them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kg.json_checks import INT64_MAX

BOM = b"\xef\xbb\xbf"
_DIGITS = re.compile(r"[0-9]+")


def strip_bom(data: bytes) -> bytes:
    """The file's bytes without a leading UTF-8 byte-order mark (the one BOM rule)."""
    return data[len(BOM) :] if data.startswith(BOM) else data


_NOT_UTF8 = "not valid UTF-8: byte 0x{byte:02x} at column {col} (save the file as UTF-8)"


def split_lines(data: bytes) -> list[bytes]:
    """A file's lines as bytes: a leading BOM skipped, `\r\n` read as `\n`, no final empty
    line after the last newline."""
    lines = [raw.removesuffix(b"\r") for raw in strip_bom(data).split(b"\n")]
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def decode_line(
    raw: bytes, not_utf8: str = _NOT_UTF8, too_long: str = "", max_bytes: int | None = None
) -> tuple[str | None, str | None]:
    """(text, None) for a UTF-8 line; (None, problem) for one longer than `max_bytes` or not
    UTF-8 (`not_utf8` formats {byte} {col}; `too_long` {size} {limit})."""
    if max_bytes is not None and len(raw) > max_bytes:
        return None, too_long.format(size=len(raw), limit=max_bytes)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, not_utf8.format(byte=raw[exc.start], col=exc.start + 1)


def decode_lines(path: Path, data: bytes) -> tuple[list[str | None], list[str]]:
    """The file's lines as text (None for a line that is not UTF-8) and one problem per such
    line, naming its line and column. A leading BOM is skipped."""
    lines: list[str | None] = []
    problems: list[str] = []
    for n, raw in enumerate(split_lines(data), start=1):
        text, problem = decode_line(raw)
        lines.append(text)
        if problem:
            problems.append(f"{path}:{n}:-: {problem}")
    return lines, problems


def decode_text(path: Path, data: bytes) -> tuple[str | None, list[str]]:
    """The whole file as text, or None and the problems of its non-UTF-8 lines."""
    lines, problems = decode_lines(path, data)
    if problems:
        return None, problems
    return "\n".join(line or "" for line in lines), []


def parse_id(value: Any) -> tuple[int | None, str | None]:
    """(id, None) for an integer or a string of digits only; (None, problem) otherwise."""
    if isinstance(value, bool) or value is None:
        return None, "missing (an integer id)" if value is None else f"not an id: {value!r}"
    if isinstance(value, int):
        n = value
    elif isinstance(value, str) and _DIGITS.fullmatch(value):
        n = int(value)
    else:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        return None, f"not an id: {shown} (an integer, or a string of digits only)"
    if not 0 <= n <= INT64_MAX:
        return None, f"id {str(n)[:30]} is outside 0..2^63-1"
    return n, None


def blank(value: Any) -> bool:
    """A text that holds nothing (empty or whitespace only)."""
    return isinstance(value, str) and not value.strip()
