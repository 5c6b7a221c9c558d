"""Build, evaluation and PERSPECTRA runs share the `Run` label in one graph; each area's
listing must read only its own runs and never trip over another area's properties."""

import pytest

from evaluation.runs.store import get_run, list_runs
from kg.runs import RunRecord, RunStatus, finish_run, read_run, start_run

pytestmark = pytest.mark.integration


def test_eval_listing_ignores_build_and_perspectra_runs(store):
    start_run(
        store, "build-1", "build", {"domain": "d", "models": ["offline"], "stages": ["chunks"]}
    )
    start_run(store, "pp-1", "perspectra", {"roles": {"responder": "m"}, "build": "t1-x"})
    assert list_runs(store) == []
    for uid, kind in (("build-1", "build"), ("pp-1", "perspectra")):
        with pytest.raises(Exception, match=f"run '{uid}' is a {kind} run, not an evaluation"):
            get_run(store, uid)
        with pytest.raises(Exception, match="not an evaluation run"):
            get_run(store, uid, required=False)  # an eval run may not reuse the id either


def test_one_store_gives_every_kind_one_shape_and_resumes(store):
    """Every run kind is written by `kg.runs`: the same property shapes, one status vocabulary,
    and a resumed session keeps the first start time and the counters."""
    for uid, kind in (("b", "build"), ("e", "eval"), ("p", "perspectra")):
        first = start_run(
            store,
            uid,
            kind,
            {"models": ["m"], "roles": {"responder": "m"}, "prompt_hashes": {"p": "h"}},
        )
        assert first["status"] == "running" and first["roles"] == {"responder": "m"}
        finish_run(store, uid, RunStatus.partial, {"errors": ["x"], "failed": 1})
        again = start_run(store, uid, kind, {"models": ["m"]})
        assert again["started_at"] == first["started_at"] and again["status"] == "running"
        done = finish_run(store, uid, RunStatus.done, {"summary": {"n": 2}})
        record = RunRecord.from_node(read_run(store, uid) or {})
        assert record.kind == kind and record.status is RunStatus.done
        assert record.prompt_hashes == {"p": "h"} and done["summary"] == {"n": 2}
        assert isinstance(record.started_at, str) and record.ended_at is not None
