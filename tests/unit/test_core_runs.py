"""The typed run record reads every shape the three writers ever stored."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neo4j.time import DateTime

from kg.runs import RunRecord, RunStatus, run_status


@pytest.mark.parametrize(
    ("stored", "status"),
    [
        ("completed", RunStatus.done),
        ("incomplete", RunStatus.partial),
        ("stopped", RunStatus.interrupted),
        ("done", RunStatus.done),
        ("partial", RunStatus.partial),
        ("failed", RunStatus.failed),
        ("interrupted", RunStatus.interrupted),
        ("running", RunStatus.running),
        (None, None),
    ],
)
def test_one_status_vocabulary_reads_the_old_words(stored, status):
    assert run_status(stored) is status


def test_unknown_status_is_an_error():
    with pytest.raises(ValueError):
        run_status("finished-ish")


def test_build_run_shape():
    started = DateTime.from_native(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    r = RunRecord.from_node(
        {
            "uid": "b1",
            "kind": "build",
            "domain": "demo",
            "models": ["offline"],
            "roles": ["builder"],
            "config": '{"domain": "demo"}',
            "prompt_hashes": '{"facts": "cb2ba3035c01"}',
            "status": "done",
            "started_at": started,
            "summary": '{"totals": {"facts": 3}}',
        }
    )
    assert r.started_at == "2026-01-02T03:04:05+00:00" and r.status is RunStatus.done
    assert r.roles == {"builder": "offline"} and r.prompt_hashes == {"facts": "cb2ba3035c01"}
    assert r.config == {"domain": "demo"} and r.model_extra["domain"] == "demo"
    assert r.model_extra["summary"] == {"totals": {"facts": 3}}


def test_perspectra_run_shape():
    r = RunRecord.from_node(
        {
            "uid": "p1",
            "kind": "perspectra",
            "models": ["baseline:centroid"],
            "roles": ["responder"],
            "prompt_hashes": ["8a0a1ddc1975"],
            "build": "t1-set",
            "config": '{"temperature": 0}',
            "status": "partial",
            "started_at": "2026-01-02T03:04:05+00:00",
            "metrics": '{"accuracy": 0.5}',
        }
    )
    assert r.roles == {"responder": "baseline:centroid"}
    assert r.prompt_hashes == {"prompt": "8a0a1ddc1975"} and r.status is RunStatus.partial
    assert r.model_extra["build"] == "t1-set" and r.model_extra["metrics"] == {"accuracy": 0.5}


def test_eval_run_shape_with_an_old_status():
    record = RunRecord.from_node(
        {
            "uid": "run-1",
            "kind": "eval",
            "models": ["cover-all", "embedding"],
            "roles": '{"responder": "cover-all", "judge": "embedding"}',
            "prompt_hashes": "{}",
            "identity": '{"kind": "eval"}',
            "status": "completed",
            "errors": "[]",
            "started_at": "2026-01-02T03:04:05+00:00",
        }
    )
    assert record.status is RunStatus.done
    assert record.roles == {"responder": "cover-all", "judge": "embedding"}
    assert record.model_extra["identity"] == {"kind": "eval"}
    assert record.model_extra["errors"] == []


def test_identity_fields_live_in_one_place_and_keep_perspectra_uids():
    from kg.llm.config import PERSPECTRA_RESULT_FIELDS, RESULT_FIELDS

    # PERSPECTRA run uids hash exactly these five keys: changing them starts new runs.
    assert PERSPECTRA_RESULT_FIELDS == (
        "model",
        "base_url",
        "temperature",
        "max_tokens",
        "reasoning_effort",
    )
    assert RESULT_FIELDS[:5] == PERSPECTRA_RESULT_FIELDS
    assert {"reasoning", "structured_output"} <= set(RESULT_FIELDS)
