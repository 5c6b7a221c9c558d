"""Servers beyond this machine: the URI schemes of Aura and clusters, a local server without
GDS (KG_GDS=false), and `kg db up|down` refusing to manage a server kg did not start."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg import cypher_files
from kg.cli.main import app
from kg.errors import InputError
from kg.server import resolve
from kg.server.layout import ServerHome, render_conf
from kg.settings import get_settings
from kg.store import Store

# (URI, driver class, encrypted, kind shown by `kg db status`)
ACCEPTED = [
    ("neo4j+s://abcd1234.databases.neo4j.io", "Neo4jDriver", True, "routing, TLS"),
    ("neo4j+ssc://db.example.org:7687", "Neo4jDriver", True, "routing, TLS (self-signed"),
    ("neo4j://core1.example.org:7687?region=eu", "Neo4jDriver", False, "routing"),
    ("bolt+s://db.example.org", "BoltDriver", True, "direct, TLS"),
    ("bolt+ssc://10.0.0.5:7687", "BoltDriver", True, "direct, TLS (self-signed"),
    ("bolt://127.0.0.1:7687", "BoltDriver", False, "direct"),
]


@pytest.mark.parametrize(("uri", "driver", "encrypted", "kind"), ACCEPTED)
def test_driver_schemes_are_accepted_and_make_the_right_driver(uri, driver, encrypted, kind):
    settings = get_settings(neo4j_uri=uri, neo4j_password="not-used")
    assert not settings.is_local and settings.bolt_uri == uri
    assert settings.uri_kind.startswith(kind)
    store = Store(settings)  # the driver connects lazily: nothing is contacted here
    try:
        assert type(store.driver).__name__ == driver
        assert store.driver.encrypted is encrypted
    finally:
        store.close()


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("http://db.example.org:7474", "scheme 'http' is not a Neo4j driver scheme"),
        ("db.example.org:7687", "is not a Neo4j driver scheme"),
        ("neo4j+s://", "no host"),
        ("neo4j://db.example.org:99999", "not a valid URI"),
        ("neo4j+s://admin:hunter2@db.example.org", "credentials do not belong in the URI"),
        ("neo4j://db.example.org/other", "no path"),
        ("bolt://db.example.org?region=eu", "routing context (?...) needs a neo4j:// scheme"),
    ],
)
def test_bad_uris_are_refused_with_the_variable_named(uri, problem):
    with pytest.raises(InputError) as err:
        get_settings(neo4j_uri=uri)
    message = str(err.value)
    assert message.startswith("setting NEO4J_URI: ") and problem in message
    assert "hunter2" not in message  # a password put in the URI is never echoed


def test_an_empty_uri_means_the_local_server(monkeypatch):
    monkeypatch.setenv("NEO4J_URI", " ")
    assert get_settings().is_local


def test_db_down_refuses_a_server_it_does_not_manage(monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://abcd1234.databases.neo4j.io")
    result = CliRunner().invoke(app, ["db", "down"])
    assert result.exit_code == 2
    assert "stops only the local server" in result.output
    assert "neo4j+s://abcd1234.databases.neo4j.io" in result.output
    assert "nothing stopped" in result.output


def test_a_bad_uri_is_one_clear_cli_error(monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "https://abcd1234.databases.neo4j.io")
    result = CliRunner().invoke(app, ["db", "status"])
    assert result.exit_code == 1
    assert "error: setting NEO4J_URI:" in result.output and "Traceback" not in result.output


def _conf(settings, tmp_path) -> dict[str, str]:
    text = render_conf(settings, ServerHome(tmp_path / "home"), tmp_path / "lib")
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_without_gds_no_plugin_is_built_placed_or_allowed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with_gds, without = get_settings(), get_settings(gds=False)
    assert "dbms.security.procedures.allowlist" in _conf(with_gds, tmp_path)
    assert not any("procedures" in key for key in _conf(without, tmp_path))

    assert resolve.distribution(with_gds).plugin_jar is not None
    dist = resolve.distribution(without)
    assert dist.plugin_jar is None
    built: list[str] = []

    def fake_maven(pom_name, workdir, props, repo_local=None):
        built.append(pom_name)
        dist.lib.mkdir(parents=True, exist_ok=True)

    monkeypatch.setattr(resolve, "_run_maven", fake_maven)
    assert resolve.resolve(without).ready
    assert built == ["neo4j-pom.xml"]  # Neo4j only: the GDS plugin is not built


def test_one_home_switches_between_gds_and_none(tmp_path):
    home = ServerHome(tmp_path / "home")
    home.create()
    jar = tmp_path / "dist" / "open-gds-2.13.9.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"jar")
    (home.plugins / "open-gds-2.0.0.jar").symlink_to(jar)  # an older version's link
    home.place_plugin(jar)
    assert sorted(p.name for p in home.plugins.iterdir()) == ["open-gds-2.13.9.jar"]
    home.place_plugin(None)
    assert list(home.plugins.iterdir()) == []


def test_no_query_a_command_runs_calls_gds():
    """Only the two admin queries call GDS; `Store` asks `gds_available` before either."""
    call = re.compile(r"\bgds\.[\w.]+\s*\(", re.IGNORECASE)
    calling = sorted(n for n in cypher_files.all_names() if call.search(cypher_files.load(n)))
    assert calling == ["core/gds_drop_all", "core/gds_version"]


def test_no_product_code_uses_the_gds_client():
    """`Store.gds()` is for notebooks: no command (kg, construction, evaluation) calls it."""
    root = Path(__file__).resolve().parents[2]
    users = sorted(
        str(f.relative_to(root))
        for folder in ("kg", "construction", "evaluation")
        for f in (root / folder).rglob("*.py")
        if re.search(r"graphdatascience|\.gds\(\)", f.read_text(encoding="utf-8"))
    )
    assert users == ["kg/store.py"]
