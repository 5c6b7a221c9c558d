"""The real server: GDS loaded, every Cypher file plans, schema idempotent, `kg db` commands."""

import os
import socket
import subprocess
import sys

import pytest

from kg import cypher_files

pytestmark = pytest.mark.integration


def _kg(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli.main", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        timeout=300,
    )


def test_gds_is_loaded(store):
    version = store.query("core/gds_version")[0]["gds_version"]
    assert version.startswith("2.13.")
    info = store.query("core/server_info")[0]
    assert info["version"].startswith("5.26.")


def test_graphdatascience_client_runs_algorithms(store):
    """The official Python GDS client works against this server through the store's driver."""
    store.run_text(
        "UNWIND range(0, 5) AS i CREATE (:Concept {uid: 'gds-' + i, domain: 'gds-test'})"
    )
    store.run_text(
        "MATCH (a:Concept {domain: 'gds-test'}), (b:Concept {domain: 'gds-test'}) "
        "WHERE a.uid IN ['gds-0', 'gds-1', 'gds-3'] AND b.uid = CASE a.uid "
        "WHEN 'gds-0' THEN 'gds-1' WHEN 'gds-1' THEN 'gds-2' ELSE 'gds-4' END "
        "CREATE (a)-[:RELATES {label: 'CAUSES'}]->(b)"
    )
    gds = store.gds()
    assert str(gds.server_version()).startswith("2.13.")
    graph, _ = gds.graph.project.native("core-test-graph", "Concept", "RELATES")
    try:
        components = gds.wcc.stream(graph)
        # {0,1,2}, {3,4} and the lone 5: three components over six nodes
        assert len(components) == 6 and components["componentId"].nunique() == 3
    finally:
        graph.drop()


def test_every_cypher_file_plans(store):
    """EXPLAIN every named query against the real server (parameters may stay unbound)."""
    failures = {}
    for name in cypher_files.all_names():
        for stmt in cypher_files.statements(name):
            try:
                store.run_text("EXPLAIN " + stmt)
            except Exception as exc:  # noqa: BLE001 - collect every failure for one report
                failures[name] = str(exc)[:300]
    assert not failures, failures


def test_schema_is_idempotent(store):
    before = store.run_text("SHOW CONSTRAINTS YIELD name RETURN collect(name) AS n")[0]["n"]
    store.ensure_schema()
    after = store.run_text("SHOW CONSTRAINTS YIELD name RETURN collect(name) AS n")[0]["n"]
    assert sorted(before) == sorted(after)
    indexes = store.run_text("SHOW INDEXES YIELD name, type RETURN name, type")
    kinds = {r["name"]: r["type"] for r in indexes}
    assert kinds["concept_text"] == "FULLTEXT"
    assert kinds["fact_embedding"] == "VECTOR"


def test_uniqueness_is_enforced(store):
    store.run_text("CREATE (:Fact {uid: 'dup'})")
    with pytest.raises(Exception, match="already exists"):
        store.run_text("CREATE (:Fact {uid: 'dup'})")


def test_db_up_is_idempotent_and_status_reports(store, neo4j_settings):
    if not neo4j_settings.is_local:
        pytest.skip("an existing server is not managed by kg")
    store.run_text("UNWIND range(1, 3) AS i CREATE (:Domain {name: 'd' + i})")
    up = _kg("db", "up")
    assert up.returncode == 0, up.stderr
    assert "already running" in up.stdout
    st = _kg("db", "status")
    assert st.returncode == 0, st.stderr
    assert "state: running" in st.stdout and "GDS 2.13." in st.stdout
    assert "Domain" in st.stdout and "logs" in st.stdout


def test_reset_needs_confirmation(store):
    store.run_text("CREATE (:Domain {name: 'keep-me'})")
    before = store.node_counts()["Domain"]
    refused = _kg("db", "reset")
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert store.node_counts()["Domain"] == before >= 1
    done = _kg("db", "reset", "--yes")
    assert done.returncode == 0, done.stderr
    assert store.node_counts().get("Domain", 0) == 0


def _free_ports(n: int) -> list[int]:
    ports = []
    for _ in range(n):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    return ports


def test_server_dying_at_start_is_reported(neo4j_settings, tmp_path):
    """A server that cannot start (here: a bad JVM option) fails with the log's cause."""
    if not neo4j_settings.is_local:
        pytest.skip("needs the Maven-provisioned server")
    from kg.server import process
    from kg.server.errors import ServerError
    from kg.settings import get_settings

    ports = _free_ports(2)
    broken = get_settings(
        bolt_port=ports[0],
        http_port=ports[1],
        jvm_options="-XX:MaxRAM=lots",
        server_home=tmp_path / "home",
        config_dir=tmp_path / "cfg",
        cache_dir=neo4j_settings.cache_dir,
    )
    with pytest.raises(ServerError, match="died while starting") as err:
        process.start(broken)
    assert "MaxRAM" in err.value.log_tail
    assert process.status(broken).state is process.State.CRASHED
    result = _kg(
        "db",
        "status",
        env={"KG_BOLT_PORT": str(ports[0]), "KG_SERVER_HOME": str(tmp_path / "home")},
    )
    assert result.returncode == 3 and "crashed" in result.stdout + result.stderr


def test_real_jvm_given_up_on_is_stopped(neo4j_settings, tmp_path):
    """A real server that cannot answer within the deadline is stopped, not left behind."""
    if not neo4j_settings.is_local:
        pytest.skip("needs the Maven-provisioned server")
    from kg.server import process
    from kg.server.errors import ServerError
    from kg.settings import get_settings
    from kg.supervisor import alive

    ports = _free_ports(2)
    hasty = get_settings(
        bolt_port=ports[0],
        http_port=ports[1],
        start_timeout_s=0.5,
        start_timeout_max_s=0.5,
        server_home=tmp_path / "home",
        config_dir=tmp_path / "cfg",
        cache_dir=neo4j_settings.cache_dir,
    )
    launched: list[int] = []
    real_wait = process.wait_ready

    def spy(settings, pid, t0, proc=None):
        launched.append(pid)
        return real_wait(settings, pid, t0, proc)

    process.wait_ready, saved = spy, process.wait_ready
    try:
        with pytest.raises(ServerError, match="no answer on Bolt"):
            process.start(hasty)
    finally:
        process.wait_ready = saved
    assert launched, "the JVM was never launched"
    assert not alive(launched[0])
    assert process.status(hasty).state is process.State.STOPPED
    assert not process.port_open(ports[0])
