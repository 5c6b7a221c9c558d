"""Local server logic that needs no running server: config, password file, state, faults."""

import os
import socket
import stat
import subprocess
import sys
import threading
import time
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


# --- the start deadline: provisioning is unbounded, the Bolt wait starts at the launch ---

FAKE_SERVER = """
import os, socket, subprocess, sys, time
port, listen, child_file = int(sys.argv[1]), sys.argv[2] == "listen", sys.argv[3]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
open(child_file + ".part", "w").write(str(child.pid))
os.replace(child_file + ".part", child_file)  # atomic: readers never see it empty
print("fake server booting", flush=True)
if listen:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen()
time.sleep(120)
"""


def _fake_launch(monkeypatch, settings, tmp_path, *, listen: bool, provision_s: float):
    """Stand-ins for the two slow parts (Maven provisioning, the JVM); the rest is real."""
    home = process.home_of(settings)
    home.create()
    child_file = tmp_path / "child.pid"

    def slow_provision(s, progress=lambda _m: None):
        time.sleep(provision_s)  # what a cold Maven resolution does to the clock
        return process.Provisioned(Path(sys.executable), home, tmp_path, "pw", provision_s)

    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    monkeypatch.setattr(process, "provision", slow_provision)
    monkeypatch.setattr(
        process,
        "server_command",
        lambda s, ready: [
            sys.executable,
            str(script),
            str(s.bolt_port),
            "listen" if listen else "silent",
            str(child_file),
        ],
    )
    monkeypatch.setattr(process, "bolt_answers", lambda s: True)
    return home, child_file


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return ") Z " in Path(f"/proc/{pid}/stat").read_text()


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_slow_provisioning_does_not_eat_the_bolt_deadline(monkeypatch, settings, tmp_path):
    settings = settings.model_copy(update={"start_timeout_s": 1.5})
    _fake_launch(monkeypatch, settings, tmp_path, listen=True, provision_s=2.0)
    report = process.start(settings)
    try:
        assert report.status.state is process.State.RUNNING
        assert report.provision_s >= 2.0 > settings.start_timeout_s
        assert report.start_s < settings.start_timeout_s
    finally:
        assert process.stop(settings, timeout=5) is True


def test_server_that_never_opens_bolt_fails_and_leaves_nothing(monkeypatch, settings, tmp_path):
    settings = settings.model_copy(update={"start_timeout_s": 4.0, "start_timeout_max_s": 6.0})
    home, child_file = _fake_launch(monkeypatch, settings, tmp_path, listen=False, provision_s=0.0)
    with pytest.raises(ServerError, match="no answer on Bolt") as err:
        process.start(settings)
    assert "fake server booting" in err.value.log_tail
    assert "nothing is left running" in err.value.fix
    assert not home.pid_file.exists()
    assert process.status(settings).state is process.State.STOPPED
    assert _wait_gone(int(child_file.read_text())), "the server's own children survived"


def test_a_start_still_making_progress_is_not_given_up(monkeypatch, settings, tmp_path):
    """Log lines keep coming (a first start creating its databases): past the no-progress
    timeout it still waits, up to the maximum."""
    settings = settings.model_copy(update={"start_timeout_s": 0.6, "start_timeout_max_s": 2.0})
    home, _ = _fake_launch(monkeypatch, settings, tmp_path, listen=False, provision_s=0.0)
    stop = threading.Event()

    def chatty_log():
        while not stop.wait(0.2):
            with open(home.console_log, "a") as log:
                log.write("still creating databases\n")

    writer = threading.Thread(target=chatty_log, daemon=True)
    writer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(ServerError, match="did not answer within 2 s"):
            process.start(settings)
    finally:
        stop.set()
        writer.join()
    assert time.monotonic() - t0 >= 2.0


def test_interrupted_start_stops_what_it_launched(monkeypatch, settings, tmp_path):
    home, child_file = _fake_launch(monkeypatch, settings, tmp_path, listen=False, provision_s=0.0)
    launched: list[int] = []

    def interrupted_wait(s, pid, t0, proc=None):
        launched.append(pid)
        deadline = time.monotonic() + 5
        while not child_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        raise KeyboardInterrupt

    monkeypatch.setattr(process, "wait_ready", interrupted_wait)
    with pytest.raises(KeyboardInterrupt):
        process.start(settings)
    assert launched and _wait_gone(launched[0])
    assert _wait_gone(int(child_file.read_text()))
    assert process.status(settings).state is process.State.STOPPED


def test_maven_gets_the_chosen_local_repository(monkeypatch, tmp_path):
    from kg.server import resolve

    calls: list[list[str]] = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(resolve.subprocess, "run", fake_run)
    monkeypatch.setattr(resolve, "_mvn", lambda: "mvn")
    resolve._run_maven("neo4j-pom.xml", tmp_path / "w", {"neo4j.version": "5"}, tmp_path / "m2")
    assert f"-Dmaven.repo.local={tmp_path / 'm2'}" in calls[0]
    resolve._run_maven("neo4j-pom.xml", tmp_path / "w", {"neo4j.version": "5"})
    assert not any(a.startswith("-Dmaven.repo.local") for a in calls[1])
