"""The one JSON-lines reader (kg.jsonl.json_lines): shared rules, policies as a Wording, and a
guard that no other product module decodes JSON lines on its own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kg.input_rules import split_lines
from kg.jsonl import JSONL, Wording, json_lines

ROOT = Path(__file__).resolve().parents[2]


def _read(
    lines: Sequence[bytes | str | None], wording: Wording = JSONL, limit: int | None = None
) -> list[tuple[int, bool, Any, list[str]]]:
    return [
        (ln.n, ln.blank, ln.value, [str(p) for p in ln.problems])
        for ln in json_lines(lines, wording, limit)
    ]


def test_shared_rules_bom_crlf_blank_and_utf8() -> None:
    data = b'\xef\xbb\xbf{"a": 1}\r\n\r\n  \n\xff{}\n'
    assert split_lines(data) == [b'{"a": 1}', b"", b"  ", b"\xff{}"]
    assert _read(split_lines(data)) == [
        (1, False, {"a": 1}, []),
        (2, True, None, []),
        (3, True, None, []),
        (4, False, None, [":4:-: not valid UTF-8: byte 0xff at column 1 (save the file as UTF-8)"]),
    ]


def test_objects_only_and_wording_are_the_readers_policy() -> None:
    assert _read(["[1]", "{"]) == [
        (1, False, None, [":1:-: expected a JSON object"]),
        (
            2,
            False,
            None,
            [":2:-: not JSON (Expecting property name enclosed in double quotes at column 2)"],
        ),
    ]
    any_value = Wording(
        not_json="invalid JSON: {msg} (column {col})",
        json_field="<line>",
        objects_only=False,
        scan=False,
    )
    assert _read(["[1]", "{"], any_value) == [
        (1, False, [1], []),
        (
            2,
            False,
            None,
            [
                ":2:<line>: invalid JSON: Expecting property name enclosed in double "
                "quotes (column 2)"
            ],
        ),
    ]


def test_graph_checks_and_line_limit() -> None:
    big = '{"n": 99999999999999999999}'
    ((_, _, value, problems),) = _read([big])
    assert value is None and problems and problems[0].startswith(":1:n: ")
    ((_, _, value, problems),) = _read([big.encode()], limit=5)
    assert problems == [f":1:-: line is {len(big):,} bytes; the limit is 5 bytes"]
    assert _read([None]) == [(1, False, None, [])]  # refused by the caller already


def test_no_other_module_decodes_json_lines() -> None:
    """Every JSON-lines reader goes through kg.jsonl (the chunk file is one JSON list)."""
    allowed = {"kg/jsonl.py", "construction/pipeline/chunks.py"}
    found = {
        str(p.relative_to(ROOT))
        for top in ("kg", "construction", "evaluation")
        for p in (ROOT / top).rglob("*.py")
        if "json_checks.loads(" in p.read_text(encoding="utf-8")
    }
    assert found <= allowed, found - allowed
