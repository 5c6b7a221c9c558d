"""Batch files: the input JSONL (one request a line, split at the provider's limits) and the
output and error files read back, line by line, with every problem named."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

# OpenAI's limits of one batch input file.
MAX_LINES = 50_000
MAX_BYTES = 200 * 1024 * 1024
ENDPOINT: Literal["/v1/chat/completions"] = "/v1/chat/completions"


def input_line(custom_id: str, body: dict[str, Any]) -> bytes:
    line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def split_lines(
    lines: dict[str, dict[str, Any]], max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES
) -> list[list[tuple[str, bytes]]]:
    """The lines (custom_id -> body) as input files, each at most `max_lines` lines and
    `max_bytes` bytes; a single line larger than `max_bytes` is an error (no provider takes it)."""
    files: list[list[tuple[str, bytes]]] = []
    size = 0
    for custom_id, body in lines.items():
        raw = input_line(custom_id, body)
        if len(raw) > max_bytes:
            raise ValueError(
                f"batch line {custom_id}: {len(raw):,} bytes, more than a batch file may hold "
                f"({max_bytes:,})"
            )
        if not files or len(files[-1]) >= max_lines or size + len(raw) > max_bytes:
            files.append([])
            size = 0
        files[-1].append((custom_id, raw))
        size += len(raw)
    return files


class FileResults(BaseModel):
    """What an output or error file says: replies, failed lines, and malformed lines."""

    replies: dict[str, dict[str, Any]] = Field(default_factory=dict)
    failed: dict[str, str] = Field(default_factory=dict)  # custom_id -> why
    problems: list[str] = Field(default_factory=list)  # malformed lines, named


def read_results(raw: bytes, where: str, expected: set[str]) -> FileResults:
    """Parse a batch output or error file (`where` names it: batch and file id). A line is a
    reply (status 200 with a body), a failed line (another status, or an `error`), or
    malformed: then it is a problem naming the line, and nothing is taken from it."""
    out = FileResults()
    for n, text in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        if not text.strip():
            continue
        at = f"{where} line {n}"
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            out.problems.append(f"{at}: not JSON ({exc.msg} at column {exc.colno})")
            continue
        cid = row.get("custom_id") if isinstance(row, dict) else None
        if not isinstance(cid, str) or cid not in expected:
            out.problems.append(
                f"{at}: custom_id {cid!r} is not a line of this batch"
                if isinstance(cid, str)
                else f"{at}: no custom_id"
            )
            continue
        response, error = row.get("response"), row.get("error")
        if error:
            out.failed[cid] = f"{at}: {_error_text(error)}"
            continue
        if not isinstance(response, dict) or not isinstance(response.get("status_code"), int):
            out.problems.append(f"{at}: custom_id {cid}: no response with a status_code")
            out.failed[cid] = f"{at}: malformed line"
            continue
        body = response.get("body")
        if response["status_code"] != 200:
            err = body.get("error") if isinstance(body, dict) else body
            out.failed[cid] = f"{at}: status {response['status_code']}: {_error_text(err)}"
        elif not isinstance(body, dict):
            out.problems.append(f"{at}: custom_id {cid}: status 200 without a JSON body")
            out.failed[cid] = f"{at}: malformed line"
        else:
            out.replies[cid] = body
    return out


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        return f"{code}: {message}" if code else str(message or error)
    return str(error)[:300]
