"""Start, watch and stop one local Neo4j server process (no Docker, no service manager)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kg import cypher_files
from kg.server.errors import ServerError
from kg.server.java import find_java
from kg.server.layout import ServerHome, read_or_create_password, render_conf
from kg.server.resolve import resolve
from kg.settings import Settings
from kg.supervisor import (
    NotReady,
    StartLimit,
    State,
    Supervisor,
    child_env,
    port_open,
    refuse_taken,
)

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


@dataclass
class Status:
    state: State
    pid: int | None
    home: ServerHome


def home_of(settings: Settings) -> ServerHome:
    return ServerHome(settings.resolved_server_home)


def supervisor(home: ServerHome) -> Supervisor:
    """The JVM's pid file and logs; a server that dies while starting stays `crashed` (its
    pid file kept) so that `kg db status` shows its log."""
    return Supervisor(
        pid_file=home.pid_file,
        logs=(home.neo4j_log, home.console_log),
        lock_file=home.run / "start.lock",
        keep_crashed=True,
    )


def log_tail(home: ServerHome, lines: int = 30) -> str:
    return supervisor(home).log_tail(lines)


def status(settings: Settings) -> Status:
    """Running once Bolt's port is open (the start waits for a real query)."""
    home = home_of(settings)
    state, pid = supervisor(home).state(lambda: port_open(settings.bolt_port))
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
    """neo4j-admin reads its arguments from an `@file` (picocli AtFiles, documented for every
    admin command), so the password is never on the command line that `ps` shows: it goes
    into a 0600 file in a 0700 folder, removed right after."""
    env = child_env(NEO4J_HOME=str(home.root), NEO4J_CONF=str(home.conf))
    with tempfile.TemporaryDirectory(prefix="kg-admin-") as folder:  # created 0700
        args = Path(folder) / "args"
        fd = os.open(args, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(password + "\n")  # token_urlsafe: no space, quote or '#' to escape
        proc = subprocess.run(
            [str(java), "-cp", f"{lib}/*", ADMIN_TOOL, "dbms", "set-initial-password", f"@{args}"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            umask=0o077,
        )
    if proc.returncode != 0:
        raise ServerError(
            "could not set the initial password of the local server",
            f"remove {home.data} to start from an empty server",
            log_tail=(proc.stdout + proc.stderr)[-2000:],
        )


ProgressFn = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass
class Provisioned:
    """Everything a launch needs, made ready before any Bolt deadline starts."""

    java: Path
    home: ServerHome
    lib: Path
    password: str
    seconds: float


@dataclass
class StartReport:
    status: Status
    provision_s: float  # Maven resolution, shading, layout, password (0 when already running)
    start_s: float  # from the JVM launch until Bolt answered


def prepare(settings: Settings, progress: ProgressFn = _quiet) -> tuple[ServerHome, Path, str]:
    """Resolve jars, lay out the home, write neo4j.conf, make sure the password is set."""
    dist = resolve(settings, progress=progress)
    home = home_of(settings)
    home.create()
    (home.conf / "neo4j.conf").write_text(render_conf(settings, home, dist.lib), encoding="utf-8")
    home.place_plugin(dist.plugin_jar)
    if home.auth_file.exists() and not settings.password_file.exists():
        raise ServerError(
            f"the local server at {home.root} has data but its password file "
            f"{settings.password_file} is gone",
            f"restore the file, or stop the server and delete {home.data} to start empty",
        )
    password = read_or_create_password(settings.password_file)
    return home, dist.lib, password


def provision(settings: Settings, progress: ProgressFn = _quiet) -> Provisioned:
    """The provisioning phase: no deadline, because a first run resolves and shades jars from
    Maven Central (minutes on a cold machine) and only then can a JVM be launched."""
    t0 = time.monotonic()
    java = find_java(settings.java_home)
    home, lib, password = prepare(settings, progress)
    if not home.auth_file.exists():
        progress("setting the initial password")
        _set_initial_password(java.executable, home, lib, password)
    return Provisioned(java.executable, home, lib, password, time.monotonic() - t0)


def server_command(settings: Settings, ready: Provisioned) -> list[str]:
    heap = settings.heap_size
    return [
        str(ready.java),
        f"-Xms{heap}",
        f"-Xmx{heap}",
        "-XX:+UseG1GC",
        "-XX:+ExitOnOutOfMemoryError",
        "-Dfile.encoding=UTF-8",
        *JVM_OPENS,
        *_cds_options(settings, ready.home, ready.java, ready.lib),
        *settings.jvm_options.split(),
        "-cp",
        _classpath(ready.home, ready.lib),
        ENTRY_POINT,
        f"--home-dir={ready.home.root}",
        f"--config-dir={ready.home.conf}",
    ]


def start(settings: Settings, progress: ProgressFn = _quiet) -> StartReport:
    """Start the server unless it runs already, and wait until Bolt answers.

    Two phases: provisioning (unbounded, reported through `progress`), then the launch, whose
    `start_timeout_s` deadline starts when the JVM is started. A launch that fails or is
    interrupted stops the process it started: nothing keeps running behind the user's back.
    One start at a time per server home: a second `kg db up` waits, then finds it running.
    """
    with supervisor(home_of(settings)).start_lock():
        return _start_locked(settings, progress)


def _start_locked(settings: Settings, progress: ProgressFn) -> StartReport:
    current = status(settings)
    if current.state is State.RUNNING:
        return StartReport(current, 0.0, 0.0)
    if current.state is State.STARTING:  # launched by another command: wait, but not ours to kill
        t0 = time.monotonic()
        return StartReport(wait_ready(settings, current.pid or 0, t0), 0.0, time.monotonic() - t0)
    refuse_taken(
        (settings.bolt_port, settings.http_port),
        "stop that process, or choose free ports with KG_BOLT_PORT / KG_HTTP_PORT",
    )
    ready = provision(settings, progress)
    progress("launching the JVM")
    home = ready.home
    sup = supervisor(home)
    t0 = time.monotonic()
    proc = sup.launch(
        server_command(settings, ready),
        home.console_log,
        cwd=home.root,
        env=child_env(),  # no model API keys in the JVM
        umask=0o077,  # the store, auth and logs readable by their owner only
    )
    try:
        with sup.stopped_on_failure(proc):
            st = wait_ready(settings, proc.pid, t0, proc)
    except BaseException:
        _discard_parts(home)  # a JVM that failed may have left its class archive half written
        raise
    return StartReport(st, ready.seconds, time.monotonic() - t0)


def _discard_parts(home: ServerHome) -> None:
    for part in home.run.glob("classes-*.jsa.part"):
        part.unlink()


def _log_size(home: ServerHome) -> int:
    return sum(f.stat().st_size for f in (home.neo4j_log, home.console_log) if f.exists())


def wait_ready(
    settings: Settings, pid: int, t0: float, proc: subprocess.Popen[bytes] | None = None
) -> Status:
    """Wait for Bolt. Gives up after `start_timeout_s` with no sign of progress (the logs stop
    growing), or after `start_timeout_max_s` in all: a first start on a loaded machine spends
    minutes creating its databases while still making progress."""
    home = home_of(settings)
    sup = supervisor(home)
    limit = StartLimit(
        stall_s=settings.start_timeout_s,
        max_s=max(settings.start_timeout_max_s, settings.start_timeout_s),
        progress=lambda: _log_size(home),
    )
    try:
        sup.wait_ready(
            pid, t0, lambda: port_open(settings.bolt_port) and bolt_answers(settings), limit, proc
        )
    except NotReady as exc:
        if exc.died:
            raise ServerError(
                "the Neo4j server died while starting",
                f"read the log below and {home.neo4j_log}; `kg db status` shows it as crashed",
                log_tail=sup.log_tail(),
            ) from None
        raise ServerError(
            f"the Neo4j server {exc.why} after its launch (no answer on Bolt)",
            "raise KG_START_TIMEOUT_S / KG_START_TIMEOUT_MAX_S on a slow machine, or read the log",
            log_tail=sup.log_tail(),
        ) from None
    return Status(State.RUNNING, pid, home)


def bolt_answers(settings: Settings) -> bool:
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
    sup = supervisor(home)
    pid = sup.pid()
    if pid is None:
        return False
    pending = sorted(home.run.glob("classes-*.jsa.part")) + _dump_pending(pid)
    # Writing the class-data archive at exit takes a while on a busy machine.
    done = sup.stop(timeout * 4 if pending else timeout)
    for part in home.run.glob("classes-*.jsa.part"):
        if done.killed or not done.was_alive or part.stat().st_size == 0:
            part.unlink()  # possibly half written: never map it
        else:
            part.replace(part.with_suffix(""))
    return done.was_alive


def _dump_pending(pid: int) -> list[Path]:
    """Archive paths the process was told to write at exit (read from its command line)."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []
    flag = b"-XX:ArchiveClassesAtExit="
    return [Path(a[len(flag) :].decode()) for a in args if a.startswith(flag)]
