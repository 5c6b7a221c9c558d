"""Start, watch and stop one local Neo4j server process (no Docker, no service manager)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kg import cypher_files
from kg.processes import alive as _alive
from kg.processes import port_open, read_pid
from kg.server.errors import ServerError
from kg.server.java import find_java
from kg.server.layout import ServerHome, read_or_create_password, render_conf
from kg.server.resolve import resolve
from kg.settings import Settings

# Environment variables a server child never gets: they hold secrets it does not need.
_SECRET_VAR = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)

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


def _read_pid(home: ServerHome) -> int | None:
    return read_pid(home.pid_file)


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


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a server child process: ours without the secrets it does not need
    (model API keys, tokens, passwords: `ps e` and /proc/PID/environ show a process's
    environment, and the JVM has no use for them)."""
    env = {k: v for k, v in os.environ.items() if not _SECRET_VAR.search(k)}
    return {**env, **extra}


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
    """
    current = status(settings)
    if current.state is State.RUNNING:
        return StartReport(current, 0.0, 0.0)
    if current.state is State.STARTING:  # launched by another command: wait, but not ours to kill
        t0 = time.monotonic()
        return StartReport(wait_ready(settings, current.pid or 0, t0), 0.0, time.monotonic() - t0)
    for port in (settings.bolt_port, settings.http_port):
        if port_open(port):
            raise ServerError(
                f"port {port} on 127.0.0.1 is taken by another process",
                "stop that process, or choose free ports with KG_BOLT_PORT / KG_HTTP_PORT",
            )
    ready = provision(settings, progress)
    progress("launching the JVM")
    home = ready.home
    t0 = time.monotonic()
    with open(home.console_log, "ab") as out:
        proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            server_command(settings, ready),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=home.root,
            env=child_env(),  # no model API keys in the JVM
            umask=0o077,  # the store, auth and logs readable by their owner only
        )
    home.pid_file.write_text(str(proc.pid))
    try:
        st = wait_ready(settings, proc.pid, t0, proc)
    except ServerError as exc:
        if proc.poll() is None:  # still alive but never answered: stop it, say so
            _abort(home, proc)
            exc.fix = (
                f"{exc.fix}; the unanswering server was stopped, nothing is left running"
            ).lstrip("; ")
        raise
    except BaseException:  # Ctrl-C or any other failure while waiting
        _abort(home, proc)
        raise
    return StartReport(st, ready.seconds, time.monotonic() - t0)


def _abort(home: ServerHome, proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """Stop a server this command launched and gave up on (its whole process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=grace_s)
    for part in home.run.glob("classes-*.jsa.part"):
        part.unlink()  # a killed JVM's class archive may be half written
    home.pid_file.unlink(missing_ok=True)


def _log_size(home: ServerHome) -> int:
    return sum(f.stat().st_size for f in (home.neo4j_log, home.console_log) if f.exists())


def wait_ready(
    settings: Settings, pid: int, t0: float, proc: subprocess.Popen | None = None
) -> Status:
    """Wait for Bolt. Gives up after `start_timeout_s` with no sign of progress (the logs stop
    growing), or after `start_timeout_max_s` in all: a first start on a loaded machine spends
    minutes creating its databases while still making progress."""
    home = home_of(settings)
    hard_deadline = t0 + max(settings.start_timeout_max_s, settings.start_timeout_s)
    size, last_progress = _log_size(home), t0
    while True:
        now = time.monotonic()
        if proc is not None and proc.poll() is not None or not _alive(pid):
            raise ServerError(
                "the Neo4j server died while starting",
                f"read the log below and {home.neo4j_log}; `kg db status` shows it as crashed",
                log_tail=log_tail(home),
            )
        if port_open(settings.bolt_port) and bolt_answers(settings):
            return Status(State.RUNNING, pid, home)
        grown = _log_size(home)
        if grown != size:
            size, last_progress = grown, now
        if now - last_progress > settings.start_timeout_s or now > hard_deadline:
            break
        time.sleep(0.25)
    stalled = now - last_progress > settings.start_timeout_s
    why = (
        f"made no progress for {settings.start_timeout_s:.0f} s"
        if stalled
        else f"did not answer within {hard_deadline - t0:.0f} s"
    )
    raise ServerError(
        f"the Neo4j server {why} after its launch (no answer on Bolt)",
        "raise KG_START_TIMEOUT_S / KG_START_TIMEOUT_MAX_S on a slow machine, or read the log",
        log_tail=log_tail(home),
    )


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
