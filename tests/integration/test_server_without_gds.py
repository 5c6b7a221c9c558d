"""Every command on a Neo4j 5 server without the GDS plugin (what AuraDB Free/Pro offer): a
second local server started with KG_GDS=false, the shared sample imported into it and into
the session's GDS server, and the same perspectives (grouping, and the build's stage 7),
statistics, paths and offline scores from both. `kg db status` names the route; `kg db up|down`
refuse to manage a server given by URI.

One server start (ports KG_NOGDS_BOLT_PORT / KG_NOGDS_HTTP_PORT, default 7691 / 7692, distinct
from the session server's), stopped at the end unless it was running before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from built_copy import stage7_on_copy, stage7_views
from cli_runs import point_at, run

from kg.errors import StoreError
from kg.queries.perspectives import candidates, select
from kg.settings import Settings, get_settings
from kg.store import Store

pytestmark = pytest.mark.integration

DOMAINS = ("biology", "physics", "world_history")


def _nogds_settings() -> Settings:
    settings = get_settings(
        bolt_port=int(os.environ.get("KG_NOGDS_BOLT_PORT", "7691")),
        http_port=int(os.environ.get("KG_NOGDS_HTTP_PORT", "7692")),
        gds=False,
        heap_size="512m",  # the shared sample is small
        pagecache_size="128m",
    )
    # its own home, whatever KG_SERVER_HOME says for the session's server
    return settings.model_copy(update={"server_home": None})


@pytest.fixture(scope="module")
def nogds(neo4j_settings) -> Iterator[Store]:
    """The server without GDS, empty, schema in place."""
    if not neo4j_settings.is_local:
        pytest.skip("needs the Maven-provisioned local server (Java, Maven)")
    from kg.server import process

    settings = _nogds_settings()
    was_running = process.status(settings).state is process.State.RUNNING
    process.start(settings)
    store = Store(settings)
    try:
        if store.gds_version() is not None:
            pytest.fail(
                f"the server on port {settings.bolt_port} has GDS: it was started by someone "
                "else with KG_GDS=true; stop it or choose KG_NOGDS_BOLT_PORT"
            )
        store.ensure_schema()
        store.wipe()
        yield store
        store.wipe()
    finally:
        store.close()
        if not was_running:
            process.stop(settings)


def _at_nogds(store: Store, mp: pytest.MonkeyPatch) -> None:
    s = store.settings
    mp.delenv("NEO4J_URI", raising=False)
    mp.delenv("KG_NEO4J_URI", raising=False)
    mp.setenv("KG_BOLT_PORT", str(s.bolt_port))
    mp.setenv("KG_HTTP_PORT", str(s.http_port))
    mp.setenv("KG_GDS", "false")
    mp.delenv("KG_SERVER_HOME", raising=False)


@pytest.fixture(scope="module")
def both(nogds, store, shared_data) -> tuple[Store, Store]:
    """The shared sample imported by `kg import` into the GDS server and the one without."""
    assert store.gds_version() is not None  # the comparison is GDS server vs none
    sample = str(shared_data / "perspectivebench/sample.jsonl")
    with pytest.MonkeyPatch.context() as mp:
        for target, point in ((store, point_at), (nogds, _at_nogds)):
            point(target, mp)
            run("import", "perspectivebench", sample)
    return store, nogds


def _cli(target: Store, *args: str, code: int = 0) -> str:
    with pytest.MonkeyPatch.context() as mp:
        (_at_nogds if target.settings.gds is False else point_at)(target, mp)
        return run(*args, code=code).output


def test_status_names_the_cypher_route_and_no_gds(nogds):
    out = _cli(nogds, "db", "status")
    assert "state: running" in out
    assert "GDS not installed" in out
    assert "routes: perspective grouping in pure Cypher" in out
    assert nogds.drop_gds_graphs() == 0
    with pytest.raises(StoreError, match="no GDS plugin"):
        nogds.gds()


def test_the_sample_has_the_same_perspectives_with_and_without_gds(both):
    gds, plain = both
    assert gds.node_counts() == plain.node_counts()
    for domain in DOMAINS:
        found, same = candidates(gds, domain), candidates(plain, domain)
        assert found, domain
        assert [p.model_dump() for p in same] == [p.model_dump() for p in found]
        chosen = [p.model_dump() for p in select(found)]
        assert chosen and [p.model_dump() for p in select(same)] == chosen
    check = [json.loads(_cli(s, "perspectives", "--check", "--format", "json")) for s in both]
    assert check[0] == check[1] and check[0]


def test_build_stage7_writes_the_same_perspectives_with_and_without_gds(both):
    """The build's perspective stage on the published physics graph, on each server."""
    counts = [
        {k: n for k, n in stage7_on_copy(s, "physics", "physics_built").items() if "_ms" not in k}
        for s in both
    ]
    assert counts[0]["perspectives"] > 0 and counts[0] == counts[1]
    views = [stage7_views(s, "physics_built") for s in both]
    assert views[0] and views[0] == views[1]


def test_queries_answer_the_same_with_and_without_gds(both):
    gds, plain = both
    keys = max(candidates(gds, "physics"), key=lambda p: len(p.concept_keys)).concept_keys
    a, b = keys[0], keys[-1]
    for args in (
        ("stats",),
        ("paths", a, b, "--domain", "physics"),
        ("perspectives", a, b, "--domain", "physics", "--format", "json"),
        ("concepts", "--domain", "physics"),
    ):
        assert _cli(gds, *args) == _cli(plain, *args), args


def test_offline_eval_scores_the_same_with_and_without_gds(both):
    from evaluation.scoring.question_scores import run_scores

    args = ("eval", "run", "--responder", "cover-all", "--setting", "oracle")
    args += ("--domain", "physics", "--limit", "4", "--run-id", "nogds-cover")
    scores = []
    for target in both:
        _cli(target, *args)
        _, rows = run_scores(target, "nogds-cover")
        scores.append(sorted((s.model_dump() for s in rows), key=lambda s: s["id"]))
    assert len(scores[0]) == 4 and scores[0] == scores[1]


def test_db_up_and_down_do_not_manage_a_server_given_by_uri(nogds, monkeypatch):
    from kg.server import process

    s = nogds.settings
    monkeypatch.setenv("NEO4J_URI", f"bolt://127.0.0.1:{s.bolt_port}")
    monkeypatch.setenv("NEO4J_PASSWORD", s.password_file.read_text(encoding="utf-8").strip())
    up = run("db", "up")
    assert "starts only the local server" in up.output and "Nothing started" in up.output
    assert "Using the existing server" in up.output
    down = run("db", "down", code=2)
    assert "stops only the local server" in down.output and "nothing stopped" in down.output
    assert process.status(s).state is process.State.RUNNING
    status = run("db", "status")
    assert "(direct)" in status.output and "GDS not installed" in status.output


def test_reset_empties_the_server_without_gds(both):
    _, plain = both
    _cli(plain, "db", "reset", "--yes")
    assert sum(plain.node_counts().values()) == 0
