"""Run records: one status vocabulary, one clock and one typed reader for every Run node.

Build, PERSPECTRA and evaluation runs share the `Run` label. Their writers stored some fields
in different shapes over time (`started_at` a Neo4j datetime or an ISO string; `roles` a list
or a JSON object; `prompt_hashes` a JSON object or a list; statuses `completed`/`incomplete`/
`stopped` in older evaluation runs). `RunRecord.from_node` reads every one of them into one
typed record, so existing data reads as before.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RunStatus(StrEnum):
    """The one status vocabulary of every run kind."""

    running = "running"  # started, not closed (or killed before it could close)
    done = "done"  # every item finished
    partial = "partial"  # closed with items left (failed calls, resumable)
    failed = "failed"  # an error ended it
    interrupted = "interrupted"  # stopped on purpose: Ctrl-C, a budget, refused credentials


# Words older evaluation runs stored.
_LEGACY_STATUS = {
    "completed": RunStatus.done,
    "incomplete": RunStatus.partial,
    "stopped": RunStatus.interrupted,
}


def run_status(value: str | None) -> RunStatus | None:
    """A stored status in the one vocabulary (older words mapped); None when absent."""
    if value is None:
        return None
    return _LEGACY_STATUS.get(value) or RunStatus(value)


def now() -> str:
    """The time stamp runs record: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _time(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    native = value.to_native() if hasattr(value, "to_native") else value  # neo4j DateTime
    if isinstance(native, datetime):
        return native.astimezone(UTC).isoformat(timespec="seconds")
    return str(native)


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


class RunRecord(BaseModel):
    """One run of any kind, as stored (secrets are never stored, so never read)."""

    model_config = ConfigDict(extra="allow")

    uid: str
    kind: str
    status: RunStatus | None = None
    started_at: str | None = None
    ended_at: str | None = None
    models: list[str] = Field(default_factory=list)
    roles: dict[str, str | None] = Field(default_factory=dict)  # role -> model (or None)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)  # prompt name -> hash
    config: dict[str, Any] = Field(default_factory=dict)
    version: str | None = None

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> RunRecord:
        """Read a `Run` node's properties whatever shape its writer gave them."""
        data = dict(node)
        models = list(data.get("models") or [])
        roles = _json(data.get("roles"))
        if isinstance(roles, list):  # build and PERSPECTRA runs: the role names only
            roles = {r: (models[i] if i < len(models) else None) for i, r in enumerate(roles)}
        hashes = _json(data.get("prompt_hashes"))
        if isinstance(hashes, list):  # PERSPECTRA runs: the task prompt's hash
            hashes = {"prompt" if i == 0 else f"prompt_{i}": h for i, h in enumerate(hashes)}
        config = _json(data.get("config"))
        data.update(
            status=run_status(data.get("status")),
            started_at=_time(data.get("started_at")),
            ended_at=_time(data.get("ended_at")),
            models=models,
            roles=roles or {},
            prompt_hashes=hashes or {},
            config=config if isinstance(config, dict) else {},
        )
        for key in ("identity", "errors", "summary", "metrics"):
            if key in data:
                data[key] = _json(data[key])
        return cls.model_validate(data)
