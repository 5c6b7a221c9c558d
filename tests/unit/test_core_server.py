"""Local server logic that needs no running server: config, password file, state, faults."""

import os
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from kg.server import process
from kg.server.errors import ServerError
from kg.server.java import find_java, java_major
from kg.server.layout import ServerHome, read_or_create_password, render_conf
from kg.settings import get_settings


@pytest.fixture
def settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return get_settings(bolt_port=_free_port(), http_port=_free_port())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_conf_listens_on_loopback_only_with_auth(settings, tmp_path):
    conf = render_conf(settings, ServerHome(tmp_path / "home"), tmp_path / "lib")
    values = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line)
    for key, value in values.items():
        if key.endswith("listen_address"):
            assert value.startswith("127.0.0.1"), key
    assert values["dbms.security.auth_enabled"] == "true"
    assert values["server.memory.heap.max_size"] == settings.heap_size
    assert values["server.memory.pagecache.size"] == settings.pagecache_size
    assert values["server.bolt.listen_address"] == f"127.0.0.1:{settings.bolt_port}"


def test_password_file_is_private_and_stable(tmp_path):
    path = tmp_path / "cfg" / "pw"
    first = read_or_create_password(path)
    assert len(first) >= 24
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_or_create_password(path) == first


def test_stopped_and_crashed_are_told_apart(settings):
    home = process.home_of(settings)
    home.create()
    assert process.status(settings).state is process.State.STOPPED
    dead = subprocess.Popen(["true"])
    dead.wait()
    home.pid_file.write_text(str(dead.pid))
    assert process.status(settings).state is process.State.CRASHED
    assert process.stop(settings) is False  # nothing alive to stop; pid file cleared
    assert process.status(settings).state is process.State.STOPPED


def test_port_taken_is_reported_with_fix(settings):
    with socket.socket() as s:
        s.bind(("127.0.0.1", settings.bolt_port))
        s.listen()
        with pytest.raises(ServerError) as err:
            process.start(settings)
    assert str(settings.bolt_port) in err.value.message
    assert "KG_BOLT_PORT" in err.value.fix


def test_java_17_found_and_25_rejected():
    java = find_java()
    assert java.major in (17, 21)
    j25 = sorted(Path("/usr/lib/jvm").glob("temurin-25*/bin/java"))
    if not j25:
        pytest.skip("no Java 25 on this machine")
    assert java_major(j25[0]) == 25
    with pytest.raises(ServerError, match="needs Java 17 or 21") as err:
        find_java(candidates=[j25[0]])
    assert "KG_JAVA_HOME" in err.value.fix


def test_java_missing_names_fix():
    with pytest.raises(ServerError, match="no Java runtime") as err:
        find_java(candidates=[])
    assert "openjdk-17" in err.value.fix


def test_maven_missing_names_fix(monkeypatch):
    from kg.server import resolve

    monkeypatch.setattr(resolve.shutil, "which", lambda _name: None)
    with pytest.raises(ServerError, match="Maven") as err:
        resolve._mvn()
    assert "apt-get install maven" in err.value.fix


def test_live_pid_is_not_crashed(settings):
    home = process.home_of(settings)
    home.create()
    home.pid_file.write_text(str(os.getpid()))
    assert process.status(settings).state is process.State.STARTING  # alive, no Bolt


def test_class_data_archive_is_written_once_then_mapped(settings, tmp_path):
    home = process.home_of(settings)
    home.create()
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.jar").write_bytes(b"x")
    java = find_java().executable
    first = process._cds_options(settings, home, java, lib)
    assert len(first) == 1 and first[0].startswith("-XX:ArchiveClassesAtExit=")
    archive = Path(first[0].split("=", 1)[1].removesuffix(".part"))
    archive.write_bytes(b"archive")
    assert process._cds_options(settings, home, java, lib)[0] == f"-XX:SharedArchiveFile={archive}"
    (lib / "b.jar").write_bytes(b"y")  # another jar set never maps the old archive
    assert process._cds_options(settings, home, java, lib)[0].startswith("-XX:ArchiveClasses")
    off = settings.model_copy(update={"class_data_sharing": False})
    assert process._cds_options(off, home, java, lib) == []


def test_half_written_archive_is_discarded(settings):
    home = process.home_of(settings)
    home.create()
    part = home.run / "classes-0000.jsa.part"
    part.write_bytes(b"partial")
    dead = subprocess.Popen(["true"])
    dead.wait()
    home.pid_file.write_text(str(dead.pid))
    process.stop(settings)  # the process died on its own: its archive may be incomplete
    assert not part.exists() and not part.with_suffix("").exists()
