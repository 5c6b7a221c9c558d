"""The cost plan of a command that asks models, made before anything is asked: calls, prompt and
completion tokens, cost and wall time per role (`kg eval plan`, `kg build --plan`). One model and
one renderer for both: each command subclasses `CostPlan` with what its plan covers (`scope`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kg.errors import InputError
from kg.llm.config import Price
from kg.llm.tokens import REGEX_TOKENIZER

DEFAULT_LATENCY_S = 2.0
EXACT = "exact"


class OverBudget(InputError):
    """A plan's estimated cost exceeds --max-cost: refused before any call."""


class RoleEstimate(BaseModel):
    """What one role (an eval responder or judge, a build stage) asks."""

    role: str
    model: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # None: the price table has no price for the model
    completion_source: str = "assumed"  # "--max-tokens", "observed (...)" or "assumed"
    # How the calls (and their prompts) are counted: "exact" (the items the command would ask,
    # their prompts rendered), else how they are estimated.
    calls_source: str = EXACT


class CostPlan(BaseModel):
    roles: list[RoleEstimate] = Field(default_factory=list)
    cost: float | None = None  # None: some role's model has no price
    unpriced: list[str] = Field(default_factory=list)  # models without a price
    wall_s: float = 0.0
    latency_s: float = DEFAULT_LATENCY_S
    latency_source: str = "assumed"  # "--latency", "observed (...)" or "assumed"
    tokenizer: str = REGEX_TOKENIZER
    notes: list[str] = Field(default_factory=list)  # how the plan was made, shown under it
    batch: bool = False  # priced at the batch API's price (`--batch`)

    def scope(self) -> str:
        """What the plan covers, for the summary line (each command's plan says it)."""
        return "plan"

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.roles)

    @property
    def estimated(self) -> bool:
        return any(r.calls_source != EXACT for r in self.roles)

    def price(self, prices: dict[str, Price | None]) -> None:
        """Each role's cost from its model's price (`LLMConfig.price_for`; with `--batch` its
        batch factor), and the total."""
        unpriced: set[str] = set()
        for r in self.roles:
            price = prices.get(r.model)
            if price is None:
                r.cost = None
                unpriced.add(r.model)
                continue
            r.cost = price.cost(r.prompt_tokens, r.completion_tokens, batch=self.batch)
        priced = [r.cost for r in self.roles if r.cost is not None]
        self.cost = sum(priced) if priced else None
        self.unpriced = sorted(unpriced)

    def over(self, limit: float | None) -> bool:
        """Whether the estimated cost exceeds `limit` (no limit or no price: it cannot)."""
        return self.cost is not None and limit is not None and self.cost > limit

    def refuse_over(self, limit: float | None, what: str, calls: str, fewer: str) -> None:
        """Raise `OverBudget` when the estimate exceeds `limit`: `what` the command's work,
        `calls` what the calls are for, `fewer` how to ask less."""
        if limit is None or not self.over(limit):
            return
        raise OverBudget(
            f"{what}: the plan's estimated cost ${self.cost or 0:.4f} exceeds --max-cost "
            f"${limit:.4f} ({self.calls} model call(s){calls}); raise --max-cost or {fewer}"
        )

    def line(self) -> str:
        """The one-line summary a run prints before it starts."""
        cost = f"${self.cost:.2f}" if self.cost is not None else "cost unknown (no price)"
        if not self.roles:  # nothing asks a model
            cost = "$0.00"
        elif self.cost is not None and self.unpriced:
            cost += f" + unpriced {', '.join(self.unpriced)}"
        if self.batch and self.roles:
            cost += " at the batch price"
        about = "~" if self.estimated else ""
        return (
            f"plan: {self.scope()}, {about}{self.calls} model call(s), "
            f"{sum(r.prompt_tokens for r in self.roles):,} prompt + "
            f"{sum(r.completion_tokens for r in self.roles):,} completion tokens, {cost}, "
            f"~{duration(self.wall_s)}"
        )

    def table(self) -> str:
        """One Markdown row per role, and the total; a column saying how the calls are counted
        when some are estimated."""
        how = self.estimated
        rows = [
            "| role | model | calls | prompt tokens | completion tokens | cost ($) |"
            + (" calls counted |" if how else ""),
            "|---|---|---:|---:|---:|---:|" + ("---|" if how else ""),
        ]
        for r in self.roles:
            cost = f"{r.cost:.4f}" if r.cost is not None else "no price"
            rows.append(
                f"| {r.role} | {r.model} | {r.calls} | {r.prompt_tokens:,} | "
                f"{r.completion_tokens:,} | {cost} |" + (f" {r.calls_source} |" if how else "")
            )
        total = f"{self.cost:.4f}" if self.cost is not None else "unknown"
        rows.append(
            f"| total | | {self.calls} | {sum(r.prompt_tokens for r in self.roles):,} | "
            f"{sum(r.completion_tokens for r in self.roles):,} | {total} |" + (" |" if how else "")
        )
        return "\n".join(rows)

    def report(self) -> list[str]:
        """What `kg eval plan` and `kg build --plan` print: the table, the line, where the
        figures come from and the notes."""
        out = [self.table()] if self.roles else []
        out.append(self.line())
        if self.roles:
            sources = ", ".join(f"{r.role} {r.completion_source}" for r in self.roles)
            prompts = "the rendered prompts"
            if self.estimated:
                prompts += " (estimated calls: tokens per call as their source says)"
            out.append(
                f"  prompt tokens: {self.tokenizer} on {prompts}; completion tokens: {sources}; "
                f"wall time at {self.latency_s:.3g} s per call ({self.latency_source})"
            )
        out += [f"  {n}" for n in self.notes]
        return out


def duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
