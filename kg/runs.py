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
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from kg.store import Store


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


# --- the one store of Run nodes: every kind (build, eval, judge, perspectra) writes through it ---

# Neo4j properties cannot hold maps: these fields are stored as JSON text (read back by
# `RunRecord.from_node`).
JSON_FIELDS = (
    "roles",
    "prompt_hashes",
    "config",
    "identity",
    "errors",
    "summary",
    "metrics",
    "endpoints",  # a fleet's per-endpoint figures (kg.llm.fleet)
)


def _is_map_like(value: Any) -> bool:
    return isinstance(value, dict) or (
        isinstance(value, list | tuple) and any(isinstance(v, dict | list) for v in value)
    )


def _encode(props: dict[str, Any]) -> dict[str, Any]:
    """JSON text for the JSON fields and for any other map (Neo4j stores no maps)."""
    return {
        k: (
            json.dumps(v, sort_keys=True, default=str)
            if v is not None and (k in JSON_FIELDS or _is_map_like(v))
            else v
        )
        for k, v in props.items()
    }


def decode_run(node: dict[str, Any]) -> dict[str, Any]:
    out = dict(node)
    for k in JSON_FIELDS:
        if k in out:
            out[k] = _json(out[k])
    return out


def start_params(
    uid: str, kind: str, props: dict[str, Any], *, source: str | None = None, at: str | None = None
) -> dict[str, Any]:
    """Parameters of `core/run_start` (for callers that start a run inside a transaction)."""
    return {"uid": uid, "kind": kind, "props": _encode(props), "source": source, "now": at or now()}


def finish_params(
    uid: str, status: RunStatus, props: dict[str, Any] | None = None, *, at: str | None = None
) -> dict[str, Any]:
    """Parameters of `core/run_finish`."""
    return {"uid": uid, "status": status.value, "props": _encode(props or {}), "now": at or now()}


def start_run(
    store: Store, uid: str, kind: str, props: dict[str, Any], *, source: str | None = None
) -> dict[str, Any]:
    """Create the run, or reopen it (a rerun resumes): status `running`, `started_at` kept from
    the first session, counters set once. `source` links a judge run to the run it re-judges."""
    row = store.query("core/run_start", **start_params(uid, kind, props, source=source))
    return decode_run(row[0]["run"])


def finish_run(
    store: Store, uid: str, status: RunStatus, props: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Close a session of the run with its status, end time and whatever it measured."""
    row = store.query("core/run_finish", **finish_params(uid, status, props))
    return decode_run(row[0]["run"])


def read_run(store: Store, uid: str) -> dict[str, Any] | None:
    """A run's stored properties with JSON fields decoded, or None. A run stored `running`
    whose process died (no live lease) reads `interrupted` (`status_reason`: lease expired),
    as in every listing."""
    from kg.leases import effective_status

    run = store.query("core/run_get", uid=uid)[0]["run"]
    return effective_status(store, [decode_run(run)])[0] if run is not None else None
