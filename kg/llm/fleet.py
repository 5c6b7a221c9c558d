"""The endpoint pool of a fleet: which endpoint takes the next request, and what each did.

Each endpoint has a cap on requests in flight (its `max_in_flight`). A request goes to the
endpoint with the fewest in flight (ties: the higher weight, then the order given). An endpoint
whose request failed for a reason of its own (no connection, a timeout, 5xx, 429, a refused
key) is cooled down: no request goes there until the cooldown ends (doubling per failure in a
row, up to `cooldown_max_s`), and then only one at a time until one succeeds. The client retries
the failed request on another endpoint; an answer is counted once, by the request that got it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from kg.llm.fleet_file import Endpoint


class FleetDown(Exception):
    """Every endpoint failed its last requests: further requests would fail the same way."""


@dataclass
class EndpointState:
    endpoint: Endpoint
    cap: int
    api: Any = None  # the openai.AsyncOpenAI of the current event loop
    in_flight: int = 0
    calls: int = 0  # HTTP requests sent here
    errors: int = 0
    cooldowns: int = 0
    failures_in_row: int = 0
    cool_until: float = 0.0
    last_error: str | None = None
    latencies: list[float] = field(default_factory=list)  # of the requests answered

    @property
    def url(self) -> str:
        return self.endpoint.base_url

    def usable(self, now: float) -> bool:
        """Free to take a request now: not cooling down, below its cap (one at a time while
        it is being probed after a cooldown)."""
        cap = 1 if self.failures_in_row else self.cap
        return self.cool_until <= now and self.in_flight < cap

    def stats(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        return {
            "base_url": self.url,
            "weight": self.endpoint.weight,
            "max_in_flight": self.cap,
            "calls": self.calls,
            "answered": len(lat),
            "errors": self.errors,
            "cooldowns": self.cooldowns,
            "latency_p50_s": _quantile(lat, 0.5),
            "latency_p95_s": _quantile(lat, 0.95),
            "last_error": self.last_error,
        }


def _quantile(values: list[float], q: float) -> float | None:
    """Nearest-rank quantile of sorted values (None when there are none)."""
    if not values:
        return None
    rank = max(1, min(len(values), round(q * len(values) + 0.5)))
    return round(values[rank - 1], 4)


class EndpointPool:
    def __init__(
        self,
        endpoints: list[Endpoint],
        default_cap: int,
        cooldown_base_s: float = 1.0,
        cooldown_max_s: float = 60.0,
    ) -> None:
        self.states = [EndpointState(e, e.max_in_flight or default_cap) for e in endpoints]
        self.cooldown_base_s, self.cooldown_max_s = cooldown_base_s, cooldown_max_s
        self._changed: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def capacity(self) -> int:
        """Requests the whole fleet takes in flight."""
        return sum(s.cap for s in self.states)

    def bind(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Start a new event loop (its HTTP clients are made by the caller); True when the
        loop changed. Counters and cooldowns are kept."""
        if self._loop is loop:
            return False
        self._loop, self._changed = loop, asyncio.Condition()
        for s in self.states:
            s.api, s.in_flight = None, 0
        return True

    def _pick(self, now: float, avoid: EndpointState | None) -> EndpointState | None:
        free = [s for s in self.states if s.usable(now)]
        if not free:
            return None
        # a retry goes elsewhere when it can (`avoid`: where the request just failed)
        return min(free, key=lambda s: (s is avoid, s.in_flight, -s.endpoint.weight))

    async def acquire(
        self, give_up_after: int, avoid: EndpointState | None = None
    ) -> EndpointState:
        """A slot on the least busy usable endpoint, other than `avoid` when another is
        usable (waits for one to free or cool down); `FleetDown` once every endpoint has failed
        `give_up_after` requests in a row."""
        assert self._changed is not None, "bind() the pool to the running loop first"
        async with self._changed:
            while True:
                if all(s.failures_in_row >= give_up_after for s in self.states):
                    raise FleetDown(
                        "every endpoint of the fleet failed its last "
                        f"{give_up_after} request(s): "
                        + "; ".join(f"{s.url}: {s.last_error}" for s in self.states)
                    )
                now = time.monotonic()
                chosen = self._pick(now, avoid)
                if chosen is not None:
                    chosen.in_flight += 1
                    chosen.calls += 1
                    return chosen
                cooling = [s.cool_until for s in self.states if s.cool_until > now]
                wait = min(cooling) - now if cooling else None
                try:
                    await asyncio.wait_for(self._changed.wait(), wait)
                except TimeoutError:
                    pass  # a cooldown ended

    async def release(
        self,
        state: EndpointState,
        *,
        latency_s: float | None = None,
        error: str | None = None,
        cool: bool = False,
        wait_s: float | None = None,
    ) -> None:
        """Give the slot back: answered (`latency_s`), or failed (`error`); `cool` when the
        failure is the endpoint's (then no request goes there for a while, at least `wait_s`,
        the server's Retry-After)."""
        assert self._changed is not None
        async with self._changed:
            state.in_flight -= 1
            if error is None:
                state.failures_in_row = 0
                if latency_s is not None:
                    state.latencies.append(latency_s)
            else:
                state.errors += 1
                state.last_error = error[:300]
                if cool:
                    backoff = min(
                        self.cooldown_max_s, self.cooldown_base_s * 2**state.failures_in_row
                    )
                    state.failures_in_row += 1
                    state.cooldowns += 1
                    state.cool_until = time.monotonic() + max(backoff, wait_s or 0.0)
            self._changed.notify_all()

    def any_usable_besides(self, state: EndpointState) -> bool:
        """Another endpoint that is not cooling down (a retry there need not wait)."""
        now = time.monotonic()
        return any(s is not state and s.cool_until <= now for s in self.states)

    def stats(self) -> list[dict[str, Any]]:
        return [s.stats() for s in self.states]


def fleet_stats(clients: list[Any]) -> list[dict[str, Any]]:
    """Per endpoint of every fleet among `clients` (LLMClient), with its role: what a run
    record keeps and a report shows. Empty when no client has a fleet."""
    return [
        {"role": c.config.role, "model": c.config.model, **row}
        for c in clients
        for row in c.endpoint_stats()
    ]


def stats_line(row: dict[str, Any]) -> str:
    """One endpoint's figures in a line (the CLI's run summary, the text report)."""

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v * 1000:.0f} ms"

    return (
        f"{row['role']} endpoint {row['base_url']}: {row['calls']} request(s), "
        f"{row['answered']} answered, {row['errors']} error(s), {row['cooldowns']} "
        f"cooldown(s); latency p50 {ms(row['latency_p50_s'])}, p95 {ms(row['latency_p95_s'])}"
    )
