"""Send the lines a round collected as provider batches, keep each batch in the graph, poll
them to the end and feed their output back to the clients' books (docs/batch.md).

The protocol is OpenAI's: `POST /files` (purpose batch) uploads the JSONL, `POST /batches`
submits it (endpoint /v1/chat/completions, window 24h), `GET /batches/{id}` polls,
`GET /files/{id}/content` reads the output and error files, `GET /batches` lists.

No line is submitted twice: a batch is written to the graph as `submitting` (with its lines'
custom_ids and a token that also goes into the batch's metadata) before it is submitted, and
the submission itself is never retried blind. A process killed at any point resumes from the
graph: batches with an id are polled again; a `submitting` one is looked up among the
provider's batches by its token (adopted when found, else its lines are collected again).
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any, Literal

import openai

from kg.llm.batch.book import BatchBook
from kg.llm.batch.lines import ENDPOINT, MAX_BYTES, MAX_LINES, read_results, split_lines
from kg.llm.client import LLMCallError, LLMClient
from kg.llm.reply_check import NotAnAnswer, answer_text
from kg.store import Store

log = logging.getLogger(__name__)
TERMINAL = {"completed", "failed", "expired", "cancelled"}
SUBMITTING = "submitting"
UNSUBMITTED = "unsubmitted"  # never accepted by the provider: its lines are collected again
WINDOW: Literal["24h"] = "24h"


class BatchDriver:
    def __init__(
        self,
        store: Store,
        scope: str,
        clients: list[LLMClient],
    ) -> None:
        """`scope` names whose batches these are (a run id, `build:<domain>`): a resumed
        process finds them by it. Polls wait `KG_LLM_BATCH_POLL_S`, growing by half up to
        `KG_LLM_BATCH_POLL_MAX_S`; files hold at most `KG_LLM_BATCH_MAX_LINES` lines and
        `KG_LLM_BATCH_MAX_MB` megabytes (OpenAI's limits by default)."""
        from kg.settings import get_settings

        settings = get_settings()
        self.store, self.scope, self.clients = store, scope, clients
        self.poll_s, self.poll_max_s = settings.llm_batch_poll_s, settings.llm_batch_poll_max_s
        self.max_lines = min(MAX_LINES, settings.llm_batch_max_lines)
        self.max_bytes = min(MAX_BYTES, int(settings.llm_batch_max_mb * 1024 * 1024))
        self.problems: list[str] = []  # malformed output lines, named (for the run's errors)
        self.submitted = 0  # batches submitted by this process
        self.lines_sent = 0
        self._apis: dict[int, openai.OpenAI] = {}
        self._open: dict[str, dict[str, Any]] = {}  # token -> node of a batch not read yet
        for c in clients:
            c.batch = BatchBook()

    # -- the rounds ---------------------------------------------------------------------
    def resume(self) -> None:
        """Take up this scope's batches from the graph: wait for the unfinished ones and read
        every finished one's output (replies are not stored anywhere else)."""
        for node in (r["batch"] for r in self.store.query("llm/batch_list", scope=self.scope)):
            client = self._client_of(node)
            if client is None or node.get("state") == UNSUBMITTED:
                continue
            if node.get("state") == SUBMITTING and not self._recover(client, node):
                continue
            assert client.batch is not None
            client.batch.in_flight.update(node["custom_ids"])
            self._open[node["token"]] = node
        if self._open:
            log.info("batch: %d batch(es) of %s taken up again", len(self._open), self.scope)
        self.settle()

    def collected(self) -> int:
        return sum(len(c.batch.wanted) for c in self.clients if c.batch is not None)

    def submit(self) -> int:
        """Every line the round collected, as batches (per model, at the limits); returns
        how many batches were submitted."""
        n = 0
        for client in self.clients:
            assert client.batch is not None
            wanted = client.batch.take_wanted()
            for chunk in split_lines(wanted, self.max_lines, self.max_bytes):
                self._submit(client, chunk)
                n += 1
        return n

    def settle(self) -> None:
        """Poll every open batch until it ends (waits growing by half up to the longest), then
        read its output and error files into the books."""
        wait = self.poll_s
        while self._open:
            for token, node in list(self._open.items()):
                client = self._client_of(node)
                assert client is not None
                batch = self._api(client).batches.retrieve(node["id"])
                if batch.status != node.get("state"):
                    node["state"] = batch.status
                    self._update(token, state=batch.status)
                if batch.status in TERMINAL:
                    self._collect(client, node, batch)
                    del self._open[token]
            if self._open:
                time.sleep(wait)
                wait = min(self.poll_max_s, wait * 1.5)

    def close_scope(self) -> None:
        """Every batch of the scope ended and was read (the session finished): a later
        session (a rerun of failed items, the next build of the domain) starts afresh."""
        self.store.query("llm/batch_close", scope=self.scope)

    # -- one batch ------------------------------------------------------------------------
    def _submit(self, client: LLMClient, chunk: list[tuple[str, bytes]]) -> None:
        assert client.batch is not None
        token = uuid.uuid4().hex
        data = b"".join(raw for _, raw in chunk)
        ids = [cid for cid, _ in chunk]
        c = client.config
        self.store.query(
            "llm/batch_begin",
            token=token,
            scope=self.scope,
            role=c.role,
            model=c.model_name,
            base_url=c.resolved_base_url,
            custom_ids=ids,
            bytes=len(data),
        )
        node: dict[str, Any] = {
            "token": token,
            "model": c.model_name,
            "base_url": c.resolved_base_url,
            "role": c.role,
            "custom_ids": ids,
            "state": SUBMITTING,
        }
        api = self._api(client)
        upload = api.files.create(file=(f"kg-{token}.jsonl", data), purpose="batch")
        self._update(token, input_file=upload.id)
        try:  # never retried blind: the provider may have accepted it before the error
            batch = api.with_options(max_retries=0).batches.create(
                input_file_id=upload.id,
                endpoint=ENDPOINT,
                completion_window=WINDOW,
                metadata={"kg_token": token, "kg_scope": self.scope[:500]},
            )
        except openai.APIError as exc:
            found = self._find(client, token)
            if found is None:
                self._update(token, state=UNSUBMITTED, error=str(exc)[:500])
                raise LLMCallError(
                    f"{c.role} model {c.model_name}: the batch of {len(ids)} line(s) was not "
                    f"submitted ({type(exc).__name__}: {exc}); nothing was sent twice, resume "
                    "to submit it again"
                ) from exc
            batch = found
        node.update(id=batch.id, state=batch.status)
        self._update(token, id=batch.id, state=batch.status, submitted_at=time.time())
        client.batch.in_flight.update(ids)
        self._open[token] = node
        self.submitted += 1
        self.lines_sent += len(ids)
        log.info("batch %s: %d line(s) of %s submitted", batch.id, len(ids), c.model_name)

    def _recover(self, client: LLMClient, node: dict[str, Any]) -> bool:
        """A batch the graph saw as `submitting`: the provider's batch with its token when
        there is one (then polled), else it never was submitted (its lines are collected
        again by the next round)."""
        found = self._find(client, node["token"])
        if found is None:
            self._update(node["token"], state=UNSUBMITTED)
            return False
        node.update(id=found.id, state=found.status)
        self._update(node["token"], id=found.id, state=found.status)
        return True

    def _find(self, client: LLMClient, token: str) -> Any:
        for batch in self._api(client).batches.list(limit=100):
            if (batch.metadata or {}).get("kg_token") == token:
                return batch
        return None

    def _collect(self, client: LLMClient, node: dict[str, Any], batch: Any) -> None:
        """A finished batch: its replies and failed lines into the book; a line in neither
        file (an expired or failed batch, a malformed line) failed in this batch."""
        book = client.batch
        assert book is not None
        expected = set(node["custom_ids"])
        api = self._api(client)
        seen: set[str] = set()
        replies = 0
        for kind, fid in (("output", batch.output_file_id), ("error", batch.error_file_id)):
            if not fid:
                continue
            raw = api.files.content(fid).content
            got = read_results(raw, f"batch {batch.id} {kind} file {fid}", expected)
            self.problems += got.problems
            for cid, body in got.replies.items():
                try:  # an empty or choice-less reply is a failed line, sent again
                    answer_text(body)
                except NotAnAnswer as exc:
                    got.failed[cid] = f"batch {batch.id} {kind} file {fid}: not an answer: {exc}"
                    continue
                book.answered(cid, body)
                replies += 1
            for cid, why in got.failed.items():
                book.failed(cid, why)
            seen |= set(got.replies) | set(got.failed)
        why = f"batch {batch.id} {batch.status}" + _batch_errors(batch)
        for cid in expected - seen:
            book.failed(cid, f"{why}: no reply")
        self._update(
            node["token"],
            output_file=batch.output_file_id,
            error_file=batch.error_file_id,
            replies=replies,
        )

    # -- plumbing -------------------------------------------------------------------------
    def _update(self, token: str, **props: Any) -> None:
        self.store.query("llm/batch_update", token=token, props=props)

    def _client_of(self, node: dict[str, Any]) -> LLMClient | None:
        for c in self.clients:
            cfg = c.config
            if (cfg.model_name, cfg.resolved_base_url, cfg.role) == (
                node.get("model"),
                node.get("base_url"),
                node.get("role"),
            ):
                return c
        return None

    def _api(self, client: LLMClient) -> openai.OpenAI:
        """The batch API of the client's endpoint (the first of a fleet: batches are one
        provider's), with the client's key, timeout and retries."""
        key = id(client)
        if key not in self._apis:
            c = client.config
            self._apis[key] = openai.OpenAI(
                api_key=c.api_key(),
                base_url=c.resolved_base_url,
                timeout=c.timeout_s,
                max_retries=c.max_retries,
            )
        return self._apis[key]

    def close(self) -> None:
        for api in self._apis.values():
            api.close()
        self._apis.clear()
        for c in self.clients:
            c.batch = None


def _batch_errors(batch: Any) -> str:
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    texts = [f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}" for e in errors[:3]]
    return f" ({'; '.join(texts)})" if texts else ""
