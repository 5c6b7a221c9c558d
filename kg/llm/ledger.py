"""Token ledger: one entry per request (cached or not), totals and cost per client."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kg.errors import LLMError
from kg.llm.config import Price


class BudgetExceeded(LLMError):
    """Raised before a call once the spent cost has reached `max_cost`."""


class CallRecord(BaseModel):
    model: str
    role: str
    prompt_name: str | None = None
    prompt_hash: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0  # HTTP requests made (retries and the repair request included)
    repaired: bool = False
    truncated: bool = False  # a reply ended by max_tokens (finish_reason "length")
    batch: bool = False  # answered through the provider's batch API (the batch price)
    latency_s: float = 0.0
    cost: float = 0.0


class Ledger(BaseModel):
    price: Price | None = None
    max_cost: float | None = None
    records: list[CallRecord] = Field(default_factory=list)

    def add(self, record: CallRecord) -> CallRecord:
        if self.price and not record.cached:
            record.cost = self.price.cost(
                record.prompt_tokens, record.completion_tokens, batch=record.batch
            )
        self.records.append(record)
        return record

    def check_budget(self) -> None:
        if self.max_cost is not None and self.cost >= self.max_cost:
            raise BudgetExceeded(
                f"cost limit reached: spent ${self.cost:.4f} of --max-cost ${self.max_cost:.4f}"
            )

    @property
    def calls(self) -> int:
        """Requests answered by the server (cache hits excluded)."""
        return sum(1 for r in self.records if not r.cached)

    @property
    def http_requests(self) -> int:
        return sum(r.attempts for r in self.records)

    @property
    def cached(self) -> int:
        return sum(1 for r in self.records if r.cached)

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.records if not r.cached)

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.records if not r.cached)

    @property
    def truncated(self) -> int:
        """Calls whose reply was cut by max_tokens (served and cached ones alike)."""
        return sum(1 for r in self.records if r.truncated)

    @property
    def cost(self) -> float:
        return sum(r.cost for r in self.records)

    def totals(self) -> dict[str, float | int]:
        return {
            "requests": len(self.records),
            "calls": self.calls,
            "cached": self.cached,
            "http_requests": self.http_requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "truncated": self.truncated,
            "cost": round(self.cost, 6),
        }
