"""An evaluation run read back as one typed record: what `kg eval runs` lists and tables."""

from __future__ import annotations

import json

from evaluation.runs.record import TABLE, EvalRunRecord
from kg.runs import RunRecord


def _node(**kw):
    base = {
        "uid": "r1",
        "kind": "eval",
        "status": "incomplete",  # an older run's word
        "roles": json.dumps({"responder": None, "judge": "offline:edge-evidence"}),
        "judge": "offline:edge-evidence",
        "setting": "oracle",
        "strategy": "plain",
        "source_run": "src",
        "failed": 2,
        "failed_total": 3,
        "tokens_out": 11,
        "calls": 4,
        "cached_calls": 1,
        "started_at": "2026-01-02T03:04:05+00:00",
        "identity": json.dumps({"kind": "eval"}),
        "sessions": [
            json.dumps({"at": "t1", "status": "partial", "completed": 1, "failed": 2}),
            "not json",  # an unreadable entry is passed over
        ],
    }
    return RunRecord.from_node(base | kw).model_dump(mode="json") | {"judged": 5}


def test_the_record_lists_its_fields_in_the_store_s_status_words():
    rec = EvalRunRecord.model_validate(_node())
    listed = rec.listing()
    assert listed["status"] == "partial" and listed["judged"] == 5
    assert [s["completed"] for s in listed["sessions"]] == [1]
    assert "identity" not in listed and rec.identity == {"kind": "eval"}  # read, not listed
    assert list(listed)[:3] == ["uid", "kind", "status"] and list(listed)[-1] == "sessions"


def test_the_table_columns_come_from_the_record():
    rec = EvalRunRecord.model_validate(_node())
    row = {head: cell(rec) for head, cell in TABLE.items()}
    assert row["responder"] == "(answers of src)"  # a judge run names its source
    assert row["failed (all sessions)"] == "2 (3 in 1)"
    assert row["calls (cached)"] == "4 (1)" and row["started"] == "2026-01-02T03:04"
    assert row["status"] == "partial" and row["setting"] == "oracle/plain"
