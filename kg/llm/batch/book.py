"""What one model's client knows in batch mode: the replies of finished batch lines, the lines
still in flight, the failures per line, and the lines a round asked for that no batch holds.

A line's `custom_id` is the content hash of its request (`kg.llm.cache.cache_key` over the
body actually sent and the sample index): the same request in a later round, or after a
restart, is the same line, so it is answered from its batch, never sent twice.
"""

from __future__ import annotations

from typing import Any

from kg.errors import LLMError

# Batches a line may be in without a reply before its work item fails: a failed or expired
# line is sent once more, then reported (never scored).
MAX_TRIES = 2


class BatchPending(Exception):  # noqa: N818 - a state, not an error: the item waits a round
    """The request is a batch line without a reply yet: its work item waits for the next
    round (nothing is scored or written for it)."""


class BatchLineFailed(LLMError):
    """A batch line got no reply in `MAX_TRIES` batches (failed, expired or malformed)."""


class BatchBook:
    def __init__(self, max_tries: int = MAX_TRIES) -> None:
        self.max_tries = max_tries
        self.replies: dict[str, dict[str, Any]] = {}  # custom_id -> chat completion body
        self.failures: dict[str, list[str]] = {}  # custom_id -> why, one per batch
        self.in_flight: set[str] = set()  # lines of batches not finished yet
        self.wanted: dict[str, dict[str, Any]] = {}  # lines to send: custom_id -> body
        self._charged: set[str] = set()

    def reply(self, custom_id: str, body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """The reply of this line and whether this is its first use (charged once); raises
        `BatchPending` (recording the line when no batch holds it) or `BatchLineFailed`."""
        if (got := self.replies.get(custom_id)) is not None:
            first = custom_id not in self._charged
            self._charged.add(custom_id)
            return got, first
        if custom_id in self.in_flight:
            raise BatchPending(custom_id)
        failed = self.failures.get(custom_id, [])
        if len(failed) >= self.max_tries:
            raise BatchLineFailed(
                f"batch line {custom_id}: no reply in {len(failed)} batch(es): "
                + "; ".join(failed)[:800]
            )
        self.wanted[custom_id] = body
        raise BatchPending(custom_id)

    def take_wanted(self) -> dict[str, dict[str, Any]]:
        """The lines this round asked for (and forgets them: they go into batches now)."""
        out, self.wanted = self.wanted, {}
        return out

    def answered(self, custom_id: str, body: dict[str, Any]) -> None:
        self.replies[custom_id] = body
        self.in_flight.discard(custom_id)

    def failed(self, custom_id: str, why: str) -> None:
        if custom_id not in self.replies:
            self.failures.setdefault(custom_id, []).append(why)
        self.in_flight.discard(custom_id)
