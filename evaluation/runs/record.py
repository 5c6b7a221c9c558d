"""An evaluation run as read from the graph: one typed record from the store to the CLI.

`EvalRunRecord` lists what `kg eval runs --json` prints, in that order (its dump is the
listing); what a run also holds but the listing leaves out (identity, config, errors, ...) is
read too, excluded from the dump. `TABLE` is the terminal table's columns, each a header and
how a record fills it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evaluation.runs.history import Session, parse_sessions
from kg.runs import RunStatus


class EvalRunRecord(BaseModel):
    """An `eval` or `judge` run with the count of answers it judged."""

    model_config = ConfigDict(extra="ignore")

    uid: str
    kind: str
    status: RunStatus | None = None  # the one run vocabulary (older words read in it)
    status_reason: str | None = None  # e.g. "lease expired": read `interrupted`, stored running
    roles: dict[str, str | None] = Field(default_factory=dict)
    judge: str | None = None
    setting: str | None = None
    strategy: str | None = None
    gt: str | None = None
    source_run: str | None = None  # judge runs: the run whose answers were judged
    judged: int = 0
    failed: int | None = None  # the last session's
    failed_total: int | None = None  # every session's
    tokens_in: int | None = None
    tokens_out: int | None = None
    calls: int | None = None
    cached_calls: int | None = None
    cost: float | None = None
    version: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    sessions: list[Session] = Field(default_factory=list)
    # read, not listed
    models: list[str] = Field(default_factory=list, exclude=True)
    owner: str | None = Field(default=None, exclude=True)  # the live lease's holder
    identity: dict[str, Any] | None = Field(default=None, exclude=True)
    config: dict[str, Any] = Field(default_factory=dict, exclude=True)
    errors: list[str] = Field(default_factory=list, exclude=True)
    judge_self_agreement: str | None = Field(default=None, exclude=True)  # JSON text

    @field_validator("sessions", mode="before")
    @classmethod
    def _sessions(cls, raw: Any) -> list[Session]:
        return parse_sessions(raw or [])

    @property
    def responder(self) -> str:
        """Who answered: the responder, the source run of a judge run, else the models."""
        return self.roles.get("responder") or (
            f"(answers of {self.source_run})" if self.source_run else ", ".join(self.models) or "-"
        )


def _failed(r: EvalRunRecord) -> str:
    return f"{r.failed or 0} ({r.failed_total or 0} in {len(r.sessions)})"


# `kg eval runs`: header -> cell of a record
TABLE: dict[str, Callable[[EvalRunRecord], str]] = {
    "run": lambda r: r.uid,
    "kind": lambda r: r.kind,
    "status": lambda r: str(r.status),
    "responder": lambda r: r.responder,
    "judge": lambda r: str(r.judge),
    "setting": lambda r: f"{r.setting}/{r.strategy}",
    "judged": lambda r: str(r.judged),
    "failed (all sessions)": _failed,
    "tokens out": lambda r: str(r.tokens_out if r.tokens_out is not None else 0),
    "calls (cached)": lambda r: f"{r.calls or 0} ({r.cached_calls or 0})",
    "started": lambda r: (r.started_at or "")[:16],
}
