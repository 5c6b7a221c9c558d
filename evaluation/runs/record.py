"""An evaluation run as read from the graph: one typed record from the store to the CLI.

`EvalRunRecord.listing()` is what `kg eval runs --json` prints: the record's fields in their
order, but for those marked unlisted (identity, config, errors, ...: read for the runner and
the report). `TABLE` is the terminal table's columns, each a header and how a record fills it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evaluation.runs.history import Session, parse_sessions
from kg.runs import RunStatus


class EvalRunRecord(BaseModel):
    """An `eval` or `judge` run with the count of answers it judged."""

    model_config = ConfigDict(extra="allow")  # any other stored property is kept, unlisted

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
    judged: int | None = None  # answers judged (in listings)
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
    models: list[str] = Field(default_factory=list)
    owner: str | None = None  # the live lease's holder
    identity: dict[str, Any] | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)
    judge_self_agreement: str | None = None  # JSON text
    endpoints: list[dict[str, Any]] = Field(default_factory=list)  # a fleet's, last session

    UNLISTED: ClassVar[set[str]] = {
        "endpoints",
        "models",
        "owner",
        "identity",
        "config",
        "errors",
        "judge_self_agreement",
    }

    def listing(self) -> dict[str, Any]:
        """The run as `kg eval runs --json` lists it."""
        listed = set(type(self).model_fields) - self.UNLISTED
        return self.model_dump(mode="json", include=listed)

    def props(self) -> dict[str, Any]:
        """Every property read (the run's stored properties, decoded), as plain data."""
        return self.model_dump(mode="json")

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
