from pathlib import Path

import pytest

from kg.settings import get_settings


def test_kg_prefix_and_overrides(monkeypatch):
    monkeypatch.setenv("KG_BOLT_PORT", "7999")
    monkeypatch.setenv("KG_HEAP_SIZE", "3g")
    s = get_settings()
    assert s.bolt_port == 7999 and s.heap_size == "3g"
    assert s.bolt_uri == "neo4j://127.0.0.1:7999"
    # CLI options (overrides) win over the environment; None means "not given".
    s2 = get_settings(bolt_port=7111, heap_size=None)
    assert s2.bolt_port == 7111 and s2.heap_size == "3g"


def test_existing_server_variables(monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret")
    s = get_settings()
    assert not s.is_local
    assert s.bolt_uri == "neo4j+s://example.databases.neo4j.io"
    assert s.neo4j_password.get_secret_value() == "s3cret"
    assert "s3cret" not in repr(s)  # secrets never show up in reprs or logs


def test_dotenv_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("KG_PAGECACHE_SIZE=768m\n")
    assert get_settings().pagecache_size == "768m"


def test_instances_per_port_are_separate(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "f"))
    monkeypatch.delenv("KG_BOLT_PORT", raising=False)  # the default instance against another
    a, b = get_settings(), get_settings(bolt_port=7801)
    assert a.resolved_server_home != b.resolved_server_home
    assert a.password_file != b.password_file
    assert a.cache_dir == Path(tmp_path / "c" / "perspectivekg")


@pytest.mark.parametrize("bad", ["x", "-1", "70000"])
def test_invalid_port_rejected(bad):
    with pytest.raises(ValueError):
        get_settings(bolt_port=bad)


@pytest.mark.parametrize("bad", ["12q", "2 g", "-1g"])
def test_invalid_memory_size_rejected(bad):
    with pytest.raises(ValueError):
        get_settings(heap_size=bad)
