"""A local OpenAI-compatible HTTP server for tests and benchmarks (real sockets, 127.0.0.1).

    server = LLMTestServer(latency=0.1).start()      # or the pytest fixture `llm_server`
    server.base_url                                  # "http://127.0.0.1:<port>/v1"
    server.add_rule(match="Judge the paths", reply={"verdicts": [...]})   # JSON content
    server.add_rule(match=lambda body: ..., reply=lambda body: "text")    # callables
    server.add_rule(match="x", status=429, headers={"Retry-After": "1"}, times=1)
    server.add_rule(match="x", status=500, times=2)          # then falls through to later rules
    server.add_rule(match="x", delay=5)                      # slower than the client timeout
    server.add_rule(match="x", reply="{not json")            # malformed JSON content
    server.add_rule(match="x", reply='{"a": "cut', finish_reason="length")  # cut by max_tokens
    server.requests                                          # every request, in arrival order
    server.config(**overrides)                               # an LLMConfig pointing here

Rules are tried in the order added; `match` is a substring of any message content, a callable
on the request body, or None (anything). A rule with `times=N` applies N times, then is skipped.
`reply` is a string (sent as the message content), a dict/list (sent as JSON text) or a
callable(body) returning either. `raw` replaces the whole HTTP body (a broken response). A
request matching no rule gets 404. With `supports_json_schema=False` a request carrying a
JSON-schema `response_format` gets 400, like servers without structured output. `latency` is
added to every request; with `max_in_flight=N` at most N requests are served at once (the
others queue, like a model server with N slots), so `latency` bounds throughput. Usage is word
counts unless the rule says `usage=False`. A rule with
`logprobs=[...]` (or a callable(body) returning a list) returns them as the reply's token
log-probabilities when the request asks for logprobs.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Match = str | Callable[[dict[str, Any]], bool] | None
ReplySpec = str | dict | list | Callable[[dict[str, Any]], Any] | None
# token log-probabilities of a reply: a list, or a callable(body) returning one
LogprobSpec = list[float] | Callable[[dict[str, Any]], list[float]] | None


@dataclass
class Rule:
    match: Match = None
    reply: ReplySpec = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    times: int | None = None
    usage: bool = True
    raw: str | bytes | None = None
    finish_reason: str = "stop"
    logprobs: LogprobSpec = None
    hits: int = 0

    def matches(self, body: dict[str, Any]) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.match is None:
            return True
        if callable(self.match):
            return bool(self.match(body))
        return any(self.match in _content_text(m) for m in body.get("messages", []))


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int
    at: float

    @property
    def text(self) -> str:
        """All message contents joined (handy for asserting on prompts)."""
        return "\n".join(_content_text(m) for m in self.body.get("messages", []))


def _content_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _words(text: str) -> int:
    return len(text.split())


class LLMTestServer:
    def __init__(
        self,
        latency: float = 0.0,
        supports_json_schema: bool = True,
        port: int = 0,
        max_in_flight: int | None = None,
    ) -> None:
        """`port=0` picks a free port; a fixed one lets a test restart "the same" server."""
        self.latency = latency
        self.max_in_flight = max_in_flight
        self._slots: asyncio.Semaphore | None = None  # made on the server's loop
        self._want_port = port
        self.supports_json_schema = supports_json_schema
        self.rules: list[Rule] = []
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        # Cleared by `pause()`: replies wait until `resume()` (a test holds a client mid-run
        # for as long as it needs, whatever the machine's speed).
        self._open = threading.Event()
        self._open.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle (an asyncio server on a thread of its own: no thread per request, so
    #    hundreds of slow requests cost little CPU, like a real async inference server) ------
    def start(self) -> LLMTestServer:
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self._loop)
            if self.max_in_flight is not None:
                self._slots = asyncio.Semaphore(self.max_in_flight)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(
                    self._connection, "127.0.0.1", self._want_port, backlog=512, reuse_address=True
                )
            )
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=serve, daemon=True, name="llm-test-server")
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._server is None or self._loop is None:
            return
        loop, server = self._loop, self._server

        async def shutdown() -> None:
            server.close()
            for task in [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
                task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        loop.close()
        self._server = None

    def __enter__(self) -> LLMTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.sockets[0].getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting ------------------------------------------------------------------------
    def add_rule(
        self,
        match: Match = None,
        reply: ReplySpec = None,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
        times: int | None = None,
        usage: bool = True,
        raw: str | bytes | None = None,
        finish_reason: str = "stop",
        logprobs: LogprobSpec = None,
    ) -> Rule:
        rule = Rule(
            match=match,
            reply=reply,
            status=status,
            headers=dict(headers or {}),
            delay=delay,
            times=times,
            usage=usage,
            raw=raw,
            finish_reason=finish_reason,
            logprobs=logprobs,
        )
        with self._lock:
            self.rules.append(rule)
        return rule

    def reset(self) -> None:
        with self._lock:
            self.rules.clear()
            self.requests.clear()

    @property
    def calls(self) -> int:
        return len(self.requests)

    def requests_matching(self, marker: str) -> list[RecordedRequest]:
        return [r for r in self.requests if marker in r.text]

    def config(self, **overrides: Any):
        """An `LLMConfig` aimed at this server (no cache, fast backoff unless overridden)."""
        from kg.llm import LLMConfig

        values: dict[str, Any] = {
            "model": "test-model",
            "base_url": self.base_url,
            "cache": False,
            "backoff_base_s": 0.01,
            "timeout_s": 10.0,
        }
        values.update(overrides)
        return LLMConfig(**values)

    # -- request handling (called from handler threads) ------------------------------------
    def _pick(self, body: dict[str, Any]) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.matches(body):
                    rule.hits += 1
                    return rule
        return None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One keep-alive connection: HTTP/1.1 requests with a Content-Length body."""
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (ln.partition(":") for ln in lines[1:] if ":" in ln)
                }
                length = int(headers.get("content-length") or 0)
                raw = await reader.readexactly(length) if length else b""
                if method == "GET" and path.rstrip("/").endswith("/models"):
                    out = (
                        200,
                        {},
                        json.dumps(
                            {"object": "list", "data": [{"id": "test-model", "object": "model"}]}
                        ).encode(),
                        0.0,
                    )
                elif method == "GET" and path == "/health":  # llama.cpp's readiness probe
                    out = (200, {}, b'{"status": "ok"}', 0.0)
                elif method != "POST":
                    out = (404, {}, _error("not found"), 0.0)
                else:
                    try:
                        body = json.loads(raw or b"{}")
                    except json.JSONDecodeError:
                        out = (400, {}, _error("request body is not JSON"), 0.0)
                    else:
                        out = self.handle(path, body, headers)
                status, out_headers, payload, delay = out
                if self._slots is not None:
                    async with self._slots:  # one of N slots "generates" this reply
                        await asyncio.sleep(delay)
                elif delay > 0:
                    await asyncio.sleep(delay)
                while not self._open.is_set():
                    await asyncio.sleep(0.05)
                writer.write(_http_response(status, out_headers, payload))
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
            asyncio.CancelledError,
            ValueError,
        ):
            pass  # the client went away (e.g. gave up on a slow reply) or spoke garbage
        finally:
            writer.close()

    def pause(self) -> None:
        """Hold every reply (already received or not) until `resume()`."""
        self._open.clear()

    def resume(self) -> None:
        self._open.set()

    def handle(self, path: str, body: dict[str, Any], headers: dict[str, str]):
        """Returns (status, headers, body bytes, delay)."""
        status, out_headers, payload, delay = self._respond(path, body)
        self.requests.append(
            RecordedRequest(path=path, body=body, headers=headers, status=status, at=time.time())
        )
        return status, out_headers, payload, delay + self.latency

    def _respond(self, path: str, body: dict[str, Any]):
        if not path.rstrip("/").endswith("/chat/completions"):
            return 404, {}, _error("not found: only /v1/chat/completions is served"), 0.0
        rf = body.get("response_format") or {}
        if rf.get("type") == "json_schema" and not self.supports_json_schema:
            return 400, {}, _error("response_format json_schema is not supported"), 0.0
        rule = self._pick(body)
        if rule is None:
            return 404, {}, _error("no scripted rule matched this request"), 0.0
        if rule.raw is not None:
            raw = rule.raw.encode() if isinstance(rule.raw, str) else rule.raw
            return rule.status, rule.headers, raw, rule.delay
        if rule.status != 200:
            return rule.status, rule.headers, _error(f"scripted status {rule.status}"), rule.delay
        reply = rule.reply(body) if callable(rule.reply) else rule.reply
        content = reply if isinstance(reply, str) else json.dumps(reply)
        prompt = " ".join(_content_text(m) for m in body.get("messages", []))
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": rule.finish_reason,
                    "message": {"role": "assistant", "content": content},
                }
            ],
        }
        if rule.logprobs is not None and body.get("logprobs"):  # only when asked, like servers
            values = rule.logprobs(body) if callable(rule.logprobs) else rule.logprobs
            payload["choices"][0]["logprobs"] = {
                "content": [
                    {"token": f"t{i}", "logprob": v, "bytes": None, "top_logprobs": []}
                    for i, v in enumerate(values)
                ]
            }
        if rule.usage:
            pt, ct = _words(prompt), _words(content)
            payload["usage"] = {
                "prompt_tokens": pt,
                "completion_tokens": ct,
                "total_tokens": pt + ct,
            }
        return 200, rule.headers, json.dumps(payload).encode(), rule.delay


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def _http_response(status: int, headers: dict[str, str], payload: bytes) -> bytes:
    head = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
        "Content-Type: application/json",
        f"Content-Length: {len(payload)}",
        *[f"{k}: {v}" for k, v in headers.items()],
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload


# -- a scripted stand-in for responder and judge models (evaluation tests and benchmarks) ----
ANSWER_MARKER = "Answer the user's question"
PATHS_MARKER = "strict evaluator of perspective alignment"
FAITH_MARKER = "claim by claim"
RELEVANCY_MARKER = "would be a complete and direct answer"
_PATH_LINE = re.compile(r"^(P\d+): ", re.MULTILINE)


def _user_text(body: dict[str, Any]) -> str:
    return "\n".join(_content_text(m) for m in body.get("messages", []) if m.get("role") == "user")


def scripted_answer(body: dict[str, Any]) -> str:
    """A deterministic answer that restates the question and quotes the first document."""
    text = _user_text(body)
    question = text.rsplit("Question:", 1)[-1].strip()
    doc = re.search(r"^\[1\] (.+)$", text, re.MULTILINE)
    return f"In short, regarding {question[:80]!r}: " + (
        doc.group(1) if doc else "the first concept shapes the second."
    )


def scripted_path_verdicts(body: dict[str, Any], present=lambda pid: int(pid[1:]) % 2 == 1):
    """One verdict per checklist path; `present(path_id)` decides (default: odd ids)."""
    text = _user_text(body)
    checklist = text.split("Checklist of paths:", 1)[-1]
    out = []
    for block in re.split(r"\n(?=P\d+: )", checklist):
        m = _PATH_LINE.match(block.strip())
        if not m:
            continue
        pid = m.group(1)
        n_edges = len(re.findall(r"^\s+edge \d+:", block, re.MULTILINE)) or 1
        ok = bool(present(pid))
        edges = [True] * n_edges if ok else [True] + [False] * (n_edges - 1)
        out.append({"path_id": pid, "edges_present": edges, "present": ok, "reason": "scripted"})
    return {"verdicts": out}


def scripted_claims(body: dict[str, Any]) -> dict[str, Any]:
    """Two claims: the first supported by S1 (when there are sources), the second not."""
    has_source = "S1:" in _user_text(body)
    return {
        "claims": [
            {
                "claim": "The first concept shapes the second.",
                "supported": has_source,
                "source_id": "S1" if has_source else None,
            },
            {"claim": "Something no source states.", "supported": False, "source_id": None},
        ]
    }


def scripted_relevancy(body: dict[str, Any]) -> dict[str, Any]:
    n = re.search(r"write (\d+) different questions", _user_text(body))
    return {
        "questions": [
            f"How does the first concept shape the second ({i})?"
            for i in range(int(n.group(1)) if n else 3)
        ]
    }


def add_eval_model(server: LLMTestServer, *, delay: float = 0.0, path_present=None) -> None:
    """Rules that play both the responder and the judge of `kg eval` deterministically."""
    paths = (
        scripted_path_verdicts
        if path_present is None
        else (lambda body: scripted_path_verdicts(body, path_present))
    )
    server.add_rule(match=PATHS_MARKER, reply=paths, delay=delay)
    server.add_rule(match=FAITH_MARKER, reply=scripted_claims, delay=delay)
    server.add_rule(match=RELEVANCY_MARKER, reply=scripted_relevancy, delay=delay)
    server.add_rule(match=ANSWER_MARKER, reply=scripted_answer, delay=delay)


# -- `kg build`'s model stages, scripted (tests/integration/test_build_llm.py and
#    test_build_plan.py): the marker of each stage's prompt, and replies made from the prompt --
BUILD_MARKERS = {
    "facts": "Extract single-fact sentences",
    "concepts": "Name the shared explanatory focus",
    "relations": "Find every explanatory relation",
    "questions": "Write one perspective-targeted question",
    "evidence": "Select the focused evidence",
}


def facts_reply(body: dict[str, Any]) -> dict[str, Any]:
    from construction.pipeline import text_units as tu

    chunk = _user_text(body).split('"""')[1]
    sents = [s for s in tu.sentences(chunk) if tu.is_complete(s)][:5]
    return {
        "facts": [
            {"sentence": s, "entities": tu.candidate_phrases(s, 2)[:3] or ["water"]} for s in sents
        ]
    }


def summary_reply(body: dict[str, Any]) -> dict[str, Any]:
    text = _user_text(body)
    words = re.search(r"orientation\): (.*)", text).group(1).split(", ")
    first_fact = re.search(r"^- (.*)$", text, re.M).group(1)
    return {"name": " ".join(w.title() for w in words[:2]), "summary": first_fact}


def relations_reply(body: dict[str, Any]) -> dict[str, Any]:
    text = _user_text(body)
    a, b = re.search(r"BOTH directions: (topic_\d+) -> (topic_\d+)", text).groups()
    fact = re.findall(r"^  - (.*)$", text, re.M)[0]  # a key-evidence sentence
    return {
        "relations": [
            {"source": a, "target": b, "label": "SUPPLIES", "reason": f"{fact} So A feeds B."},
            {"source": a, "target": b, "label": "CAUSES", "reason": f"{fact}"},
            {"source": a, "target": b, "label": "IS_PART_OF", "reason": f"As stated: {fact}"},
            {"source": b, "target": a, "label": "PRECEDES", "reason": f"{fact} B comes first."},
            {"source": b, "target": a, "label": "CAUSES", "reason": "B changes A, trust me."},
            {"source": a, "target": "topic_999", "label": "CAUSES", "reason": "wrong endpoint"},
            {"source": a, "target": a, "label": "CAUSES", "reason": "self loop"},
            {
                "source": a,
                "target": b,
                "label": "INVENTS",
                "reason": f"{fact} (not in the palette)",
                "description": "A brings B into being.",
                "category": "causal_relations",
            },
            {"source": a, "target": b, "label": "supplies", "reason": "bad label"},
        ]
    }


def question_reply_factory() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Question replies; the first names a relation label (the stage must reject it)."""
    state = {"n": 0}

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        state["n"] += 1
        names = re.findall(r"^- topic_\d+ = (.*?):", _user_text(body), re.M)
        if state["n"] == 1:  # names a relation label: must be rejected
            return {"question": f"What causes {names[-1]}?", "theme": "Causal"}
        return {
            "question": f"How is {names[0]} connected to {names[-1]} through its mechanism?",
            "theme": "Mechanism",
        }

    return reply


def evidence_reply(body: dict[str, Any]) -> dict[str, Any]:
    facts = re.findall(r"^- (.*)$", _user_text(body).split("Candidate facts")[1], re.M)
    return {"evidence": [facts[0], "A sentence that is in no chunk at all."]}


def add_build_model(server: LLMTestServer) -> None:
    """Rules that play the builder model of every `kg build` model stage."""
    replies = {
        "facts": facts_reply,
        "concepts": summary_reply,
        "relations": relations_reply,
        "questions": question_reply_factory(),
        "evidence": evidence_reply,
    }
    for stage, marker in BUILD_MARKERS.items():
        server.add_rule(match=marker, reply=replies[stage])


def main() -> None:
    """Serve from a process of its own (benchmarks: keeps the server off the client's CPU).

    Prints `PORT <n>` on the first line, then serves until stdin closes or it is killed.
    """
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--max-in-flight", type=int, default=None, help="requests served at once")
    ap.add_argument("--eval-model", action="store_true", help="add the scripted eval rules")
    ap.add_argument("--port", type=int, default=0, help="fixed port (default: a free one)")
    ap.add_argument("--reply", help="answer every request with this text")
    ap.add_argument(
        "--until-killed",
        action="store_true",
        help="serve until killed (a stand-in for a model server process)",
    )
    args, _ = ap.parse_known_args()
    server = LLMTestServer(
        latency=args.latency, port=args.port, max_in_flight=args.max_in_flight
    ).start()
    if args.eval_model:
        add_eval_model(server)
    if args.reply:
        server.add_rule(reply=args.reply)
    print(f"PORT {server.port}", flush=True)
    try:
        if args.until_killed:
            threading.Event().wait()
        sys.stdin.read()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
