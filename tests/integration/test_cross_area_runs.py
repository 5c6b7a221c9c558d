"""Build, evaluation and PERSPECTRA runs share the `Run` label in one graph; each area's
listing must read only its own runs and never trip over another area's properties."""

import pytest

from evaluation.runs import get_run, list_runs

pytestmark = pytest.mark.integration


def test_eval_listing_ignores_build_and_perspectra_runs(store):
    store.query(
        "pipeline/run_start",
        uid="build-1",
        domain="d",
        models=["offline"],
        config="{}",
        prompt_hashes=[],
        version="t",
        stages=["chunks"],
        now="2026-01-01T00:00:00+00:00",
    )
    store.query(
        "perspectra/merge_run",
        uid="pp-1",
        props={"kind": "perspectra", "roles": "not-a-map", "status": "done"},
        started_at="2026-01-01T00:00:00Z",
    )
    assert list_runs(store) == []
    for uid, kind in (("build-1", "build"), ("pp-1", "perspectra")):
        with pytest.raises(Exception, match=f"run '{uid}' is a {kind} run, not an evaluation"):
            get_run(store, uid)
        with pytest.raises(Exception, match="not an evaluation run"):
            get_run(store, uid, required=False)  # an eval run may not reuse the id either
