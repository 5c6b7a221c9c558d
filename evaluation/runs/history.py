"""Each session of a run (a first run or a resume) leaves one entry in the run's history.

`Run.failed`/`Run.errors` describe the last session only; `Run.sessions` (JSON texts) and
`Run.failed_total` keep what every session failed on, so a rerun that completes still shows
that items failed before and why.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, field_validator

from kg.runs import RunStatus, run_status
from kg.store import Store

MAX_REASONS = 20


class Session(BaseModel):
    at: str
    status: RunStatus  # the one run vocabulary (older words read in it)
    completed: int
    failed: int
    reasons: list[str] = Field(default_factory=list)

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, value: str) -> RunStatus | None:
        return run_status(value)


def record_session(store: Store, run_id: str, session: Session) -> dict[str, Any]:
    s = session.model_copy(update={"reasons": session.reasons[:MAX_REASONS]})
    return store.query(
        "eval/run_record_session", uid=run_id, session=s.model_dump_json(), failed=s.failed
    )[0]


def parse_sessions(raw: list[Any]) -> list[Session]:
    """A run's stored session entries (JSON texts; an unreadable one is passed over)."""
    out = []
    for item in raw:
        if isinstance(item, Session):
            out.append(item)
            continue
        try:
            out.append(Session.model_validate(json.loads(item) if isinstance(item, str) else item))
        except (ValueError, TypeError):
            continue
    return out


def sessions(run: dict[str, Any]) -> list[Session]:
    return parse_sessions(run.get("sessions") or [])
