"""The scripted test server (tests/llm_server.py) speaking OpenAI's batch protocol over real HTTP.

    server = BatchTestServer().start()       # or the pytest fixture `batch_server`
    add_eval_model(server)                   # the same rules answer the batch lines
    server.hold()                            # batches stay in_progress until `release()`
    server.expire_next(keep=1)               # the next batch expires after 1 line
    server.malform_next(line=1)              # the next batch's output file has a broken line
    server.fail_next()                       # the next batch fails validation as a whole
    server.drop_next_create()                # accepts the next batch, then drops the connection
    server.stall_next_create(30)             # accepts the next batch, replies 30 s later
    server.batches / server.submitted_ids / server.creates

Routes: `POST /v1/files` (multipart, purpose batch), `GET /v1/files/{id}/content`,
`POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches` (newest first),
`POST /v1/batches/{id}/cancel`. A batch is `validating` when created, `in_progress` at its
first poll and ends at the next poll (unless held): each line is answered by the chat rules
(recorded in `requests` like a direct call), 200 replies into the output file, others into
the error file. A line that is not a POST to /v1/chat/completions, a second model in one
file or a repeated custom_id fail the whole batch, as OpenAI's validation does.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from llm_server import LLMTestServer, RecordedRequest, _error


@dataclass
class _Faults:
    expire: list[int] = field(default_factory=list)  # lines answered before expiry, per batch
    malform: list[int] = field(default_factory=list)  # output line (1-based) broken, per batch
    fail: int = 0  # batches failing validation
    drop_create: int = 0  # creates accepted without a reply
    stall_create: list[float] = field(default_factory=list)  # creates accepted, replied late


def _json(status: int, value: Any) -> tuple[int, dict[str, str], bytes, float]:
    return status, {}, json.dumps(value).encode(), 0.0


class BatchTestServer(LLMTestServer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.submitted_ids: list[str] = []  # every custom_id of every created batch, in order
        self.creates = 0  # POST /batches received
        self.polls = 0
        self._lines: dict[str, list[dict[str, Any]]] = {}
        self._faults = _Faults()
        self._release = threading.Event()
        self._release.set()
        self._block = threading.Lock()

    # -- scripting ------------------------------------------------------------------------
    def hold(self) -> None:
        self._release.clear()

    def release(self) -> None:
        self._release.set()

    def expire_next(self, keep: int = 0) -> None:
        self._faults.expire.append(keep)

    def malform_next(self, line: int = 1) -> None:
        self._faults.malform.append(line)

    def fail_next(self) -> None:
        self._faults.fail += 1

    def drop_next_create(self) -> None:
        self._faults.drop_create += 1

    def lines_of(self, batch_id: str) -> list[dict[str, Any]]:
        """The input lines of a batch, as submitted."""
        return self._lines[batch_id]

    def stall_next_create(self, seconds: float) -> None:
        """The next batch is accepted at once, its reply sent `seconds` later (a client
        killed meanwhile never learns its id)."""
        self._faults.stall_create.append(seconds)

    # -- routes ---------------------------------------------------------------------------
    def route(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes, float] | None:
        url = urlsplit(path)
        parts = url.path.rstrip("/").split("/")[2:]  # after /v1
        with self._block:
            if method == "POST" and parts == ["files"]:
                return self._upload(headers, raw)
            if method == "GET" and len(parts) == 3 and parts[0] == "files":
                data = self.files.get(parts[1])
                if data is None or parts[2] != "content":
                    return 404, {}, _error(f"no file {parts[1]}"), 0.0
                return 200, {}, data, 0.0
            if method == "POST" and parts == ["batches"]:
                return self._create(json.loads(raw or b"{}"))
            if method == "GET" and parts == ["batches"]:
                limit = int(parse_qs(url.query).get("limit", ["20"])[0])
                newest = sorted(self.batches.values(), key=lambda b: -b["_seq"])
                data = [_public(b) for b in newest]
                return _json(200, {"object": "list", "data": data[:limit], "has_more": False})
            if len(parts) >= 2 and parts[0] == "batches" and parts[1] in self.batches:
                batch = self.batches[parts[1]]
                if method == "POST" and parts[2:] == ["cancel"]:
                    batch["status"] = "cancelled"
                elif method == "GET" and len(parts) == 2:
                    self.polls += 1
                    self._advance(batch)
                return _json(200, _public(batch))
        return super().route(method, path, headers, raw)

    def _upload(
        self, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes, float]:
        boundary = headers.get("content-type", "").partition("boundary=")[2].strip('"')
        if not boundary:
            return 400, {}, _error("multipart/form-data with a boundary expected"), 0.0
        fields: dict[str, bytes] = {}
        for part in raw.split(b"--" + boundary.encode())[1:]:
            head, _, body = part.partition(b"\r\n\r\n")
            name = head.decode("latin-1").partition('name="')[2].partition('"')[0]
            if name:
                fields[name] = body.removesuffix(b"\r\n")
        if fields.get("purpose") != b"batch" or "file" not in fields:
            return 400, {}, _error("a file with purpose=batch expected"), 0.0
        fid = f"file-{len(self.files) + 1}"
        self.files[fid] = fields["file"]
        return _json(
            200,
            {
                "id": fid,
                "object": "file",
                "bytes": len(fields["file"]),
                "created_at": int(time.time()),
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            },
        )

    def _create(self, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes, float] | None:
        self.creates += 1
        data = self.files.get(body.get("input_file_id", ""))
        if data is None:
            return 400, {}, _error("input_file_id: no such file"), 0.0
        bid = f"batch_{len(self.batches) + 1}"
        lines = [json.loads(t) for t in data.decode().splitlines() if t.strip()]
        self._lines[bid] = lines
        self.submitted_ids += [ln.get("custom_id") for ln in lines]
        now = int(time.time())
        self.batches[bid] = {
            "id": bid,
            "object": "batch",
            "endpoint": body.get("endpoint"),
            "errors": None,
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": now,
            "metadata": body.get("metadata") or {},
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "_seq": len(self.batches),
        }
        if self._faults.drop_create:
            self._faults.drop_create -= 1
            return None
        status, headers, payload, _ = _json(200, _public(self.batches[bid]))
        stall = self._faults.stall_create.pop(0) if self._faults.stall_create else 0.0
        return status, headers, payload, stall

    # -- a batch's life -------------------------------------------------------------------
    def _advance(self, batch: dict[str, Any]) -> None:
        if batch["status"] == "validating":
            problem = self._invalid(self._lines[batch["id"]])
            if problem or self._faults.fail:
                self._faults.fail -= 0 if problem else 1
                batch["status"] = "failed"
                batch["errors"] = {
                    "object": "list",
                    "data": [
                        {
                            "code": "invalid_request",
                            "message": problem or "scripted failure",
                            "line": None,
                            "param": None,
                        }
                    ],
                }
            else:
                batch["status"] = "in_progress"
        elif batch["status"] == "in_progress" and self._release.is_set():
            self._run(batch)

    @staticmethod
    def _invalid(lines: list[dict[str, Any]]) -> str | None:
        ids = [ln.get("custom_id") for ln in lines]
        if len(set(ids)) != len(ids):
            return "a custom_id is repeated in the file"
        if any(
            ln.get("method") != "POST" or ln.get("url") != "/v1/chat/completions" for ln in lines
        ):
            return "every line must POST to /v1/chat/completions"
        if len({(ln.get("body") or {}).get("model") for ln in lines}) != 1:
            return "a batch file holds one model"
        return None

    def _run(self, batch: dict[str, Any]) -> None:
        keep = self._faults.expire.pop(0) if self._faults.expire else None
        out: list[str] = []
        err: list[str] = []
        for n, line in enumerate(self._lines[batch["id"]]):
            cid = line["custom_id"]
            if keep is not None and n >= keep:
                err.append(
                    json.dumps(
                        {
                            "id": f"req_{n}",
                            "custom_id": cid,
                            "response": None,
                            "error": {
                                "code": "batch_expired",
                                "message": "This request could not be "
                                "executed before the completion window expired.",
                            },
                        }
                    )
                )
                continue
            status, _, payload, _ = self._respond("/v1/chat/completions", line["body"])
            self.requests.append(
                RecordedRequest(
                    path="/v1/chat/completions",
                    body=line["body"],
                    headers={"x-batch-id": batch["id"]},
                    status=status,
                    at=time.time(),
                )
            )
            try:
                body: Any = json.loads(payload)
            except json.JSONDecodeError:
                body = payload.decode("utf-8", errors="replace")
            row = {
                "id": f"req_{n}",
                "custom_id": cid,
                "error": None,
                "response": {"status_code": status, "request_id": f"r{n}", "body": body},
            }
            (out if status == 200 else err).append(json.dumps(row))
        if self._faults.malform and out:
            n = min(self._faults.malform.pop(0), len(out)) - 1
            out[n] = out[n][: len(out[n]) // 2]  # cut mid-line: not JSON
        for kind, rows in (("output", out), ("error", err)):
            if rows:
                fid = f"file-{len(self.files) + 1}"
                self.files[fid] = ("\n".join(rows) + "\n").encode()
                batch[f"{kind}_file_id"] = fid
        batch["request_counts"] = {
            "total": len(out) + len(err),
            "completed": len(out),
            "failed": len(err),
        }
        batch["status"] = "expired" if keep is not None else "completed"


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


@pytest.fixture
def batch_server():
    with BatchTestServer() as server:
        yield server
