"""Start, watch and stop one local Neo4j server process (no Docker, no service manager)."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kg import cypher_files
from kg.server.errors import ServerError
from kg.server.java import find_java
from kg.server.layout import ServerHome, read_or_create_password, render_conf
from kg.server.resolve import resolve
from kg.settings import Settings

# Neo4j 5.26 on Java 17 needs these, as its own launcher passes them.
JVM_OPENS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
]
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"


class State(StrEnum):
    RUNNING = "running"
    STARTING = "starting"  # process alive, Bolt not answering yet
    STOPPED = "stopped"
    CRASHED = "crashed"  # a pid file is left but its process is gone: it died without `db down`


@dataclass
class Status:
    state: State
    pid: int | None
    home: ServerHome


def home_of(settings: Settings) -> ServerHome:
    return ServerHome(settings.resolved_server_home)


def log_tail(home: ServerHome, lines: int = 30) -> str:
    for f in (home.neo4j_log, home.console_log):
        if f.exists() and f.stat().st_size:
            return "\n".join(f.read_text(errors="replace").splitlines()[-lines:])
    return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (our own exited child not yet reaped) is not alive.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and ") Z " in stat.read_text())


def _read_pid(home: ServerHome) -> int | None:
    try:
        return int(home.pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def port_open(port: int, host: str = "127.0.0.1", timeout: float = 0.3) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        return s.connect_ex((host, port)) == 0


def status(settings: Settings) -> Status:
    home = home_of(settings)
    pid = _read_pid(home)
    if pid is None:
        return Status(State.STOPPED, None, home)
    if not _alive(pid):
        return Status(State.CRASHED, pid, home)
    state = State.RUNNING if port_open(settings.bolt_port) else State.STARTING
    return Status(state, pid, home)


def _classpath(home: ServerHome, lib: Path) -> str:
    return f"{home.plugins}/*:{lib}/*"


def _cds_archive(home: ServerHome, java: Path, lib: Path) -> Path:
    """Per-instance archive path, keyed by JVM and jar set so a change never reuses it."""
    jars = sorted(
        f"{p.name}:{p.stat().st_size}" for p in (*lib.glob("*.jar"), *home.plugins.glob("*.jar"))
    )
    key = hashlib.sha256("\n".join([str(java.resolve()), *jars]).encode()).hexdigest()[:16]
    return home.run / f"classes-{key}.jsa"


def _cds_options(settings: Settings, home: ServerHome, java: Path, lib: Path) -> list[str]:
    if not settings.class_data_sharing:
        return []
    archive = _cds_archive(home, java, lib)
    if archive.exists():
        return [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto"]
    # Dumped at a clean exit into a temporary name; `stop` renames it once the JVM is gone.
    return [f"-XX:ArchiveClassesAtExit={archive}.part"]


def _set_initial_password(java: Path, home: ServerHome, lib: Path, password: str) -> None:
    env = {**os.environ, "NEO4J_HOME": str(home.root), "NEO4J_CONF": str(home.conf)}
    proc = subprocess.run(
        [str(java), "-cp", f"{lib}/*", ADMIN_TOOL, "dbms", "set-initial-password", password],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if proc.returncode != 0:
        raise ServerError(
            "could not set the initial password of the local server",
            f"remove {home.data} to start from an empty server",
            log_tail=(proc.stdout + proc.stderr)[-2000:],
        )


def prepare(settings: Settings) -> tuple[ServerHome, Path, str]:
    """Resolve jars, lay out the home, write neo4j.conf, make sure the password is set."""
    dist = resolve(settings)
    home = home_of(settings)
    home.create()
    (home.conf / "neo4j.conf").write_text(render_conf(settings, home, dist.lib), encoding="utf-8")
    link = home.plugins / dist.plugin_jar.name
    for old in home.plugins.glob("open-gds-*.jar"):
        if old.name != link.name:
            old.unlink()
    if not link.exists():
        link.symlink_to(dist.plugin_jar)
    if home.auth_file.exists() and not settings.password_file.exists():
        raise ServerError(
            f"the local server at {home.root} has data but its password file "
            f"{settings.password_file} is gone",
            f"restore the file, or stop the server and delete {home.data} to start empty",
        )
    password = read_or_create_password(settings.password_file)
    return home, dist.lib, password


def start(settings: Settings) -> tuple[Status, float]:
    """Start the server unless it runs already; wait until Bolt answers. Returns (status, s)."""
    t0 = time.monotonic()
    current = status(settings)
    if current.state is State.RUNNING:
        return current, 0.0
    if current.state is State.STARTING:
        return wait_ready(settings, current.pid or 0, t0)
    for port in (settings.bolt_port, settings.http_port):
        if port_open(port):
            raise ServerError(
                f"port {port} on 127.0.0.1 is taken by another process",
                "stop that process, or choose free ports with KG_BOLT_PORT / KG_HTTP_PORT",
            )
    java = find_java(settings.java_home)
    home, lib, password = prepare(settings)
    if not home.auth_file.exists():
        _set_initial_password(java.executable, home, lib, password)
    heap = settings.heap_size
    cmd = [
        str(java.executable),
        f"-Xms{heap}",
        f"-Xmx{heap}",
        "-XX:+UseG1GC",
        "-XX:+ExitOnOutOfMemoryError",
        "-Dfile.encoding=UTF-8",
        *JVM_OPENS,
        *_cds_options(settings, home, java.executable, lib),
        *settings.jvm_options.split(),
        "-cp",
        _classpath(home, lib),
        ENTRY_POINT,
        f"--home-dir={home.root}",
        f"--config-dir={home.conf}",
    ]
    with open(home.console_log, "ab") as out:
        proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=home.root,
        )
    home.pid_file.write_text(str(proc.pid))
    return wait_ready(settings, proc.pid, t0, proc)


def wait_ready(
    settings: Settings, pid: int, t0: float, proc: subprocess.Popen | None = None
) -> tuple[Status, float]:
    home = home_of(settings)
    deadline = t0 + settings.start_timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None or not _alive(pid):
            raise ServerError(
                "the Neo4j server died while starting",
                f"read the log below and {home.neo4j_log}; `kg db status` shows it as crashed",
                log_tail=log_tail(home),
            )
        if port_open(settings.bolt_port) and _bolt_answers(settings):
            return Status(State.RUNNING, pid, home), time.monotonic() - t0
        time.sleep(0.25)
    raise ServerError(
        f"the Neo4j server did not answer on Bolt within {settings.start_timeout_s:.0f} s",
        "raise KG_START_TIMEOUT_S on a slow machine, or read the log",
        log_tail=log_tail(home),
    )


def _bolt_answers(settings: Settings) -> bool:
    import neo4j

    errors = (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.Neo4jError, OSError)
    password = settings.password_file.read_text().strip()
    try:
        auth = (settings.neo4j_user, password)
        with neo4j.GraphDatabase.driver(settings.bolt_uri, auth=auth) as d:
            d.execute_query(cypher_files.load("core/ping"), database_=settings.neo4j_database)
        return True
    except errors:
        return False


def stop(settings: Settings, timeout: float = 60.0) -> bool:
    """Stop cleanly (SIGTERM, then SIGKILL after `timeout`). False if nothing was running."""
    home = home_of(settings)
    pid = _read_pid(home)
    if pid is None:
        return False
    was_alive = _alive(pid)
    pending = sorted(home.run.glob("classes-*.jsa.part")) + _dump_pending(pid)
    killed = False
    if was_alive:
        os.kill(pid, signal.SIGTERM)
        # Writing the class-data archive at exit takes a while on a busy machine.
        deadline = time.monotonic() + (timeout * 4 if pending else timeout)
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            killed = True
    for part in home.run.glob("classes-*.jsa.part"):
        if killed or not was_alive or part.stat().st_size == 0:
            part.unlink()  # possibly half written: never map it
        else:
            part.replace(part.with_suffix(""))
    home.pid_file.unlink(missing_ok=True)
    return was_alive


def _dump_pending(pid: int) -> list[Path]:
    """Archive paths the process was told to write at exit (read from its command line)."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []
    flag = b"-XX:ArchiveClassesAtExit="
    return [Path(a[len(flag) :].decode()) for a in args if a.startswith(flag)]
