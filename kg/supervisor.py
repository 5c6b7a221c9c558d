"""One supervisor for every local server the product runs in the background (the Neo4j JVM,
the llama.cpp model server): where its pid, state, lock and log files are, its state as seen
from outside (running, starting, stopped, crashed), one start at a time, a launch in a session
of its own with an environment without secrets, a readiness wait with a deadline and crash
detection, a stop by SIGTERM then SIGKILL, and nothing left running after a failed start.

What is particular to a server stays in its own module (`kg.server.process`,
`kg.llm.local.server`): its command line, how its readiness is probed and what its errors say.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from kg.errors import ServerError
from kg.safe_paths import private_dir

HOST = "127.0.0.1"  # every local server listens on the loopback interface only

# Environment variables a server child never gets: they hold secrets it does not need.
_SECRET_VAR = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)

M = TypeVar("M", bound=BaseModel)


class State(StrEnum):
    RUNNING = "running"
    STARTING = "starting"  # process alive, not answering yet
    STOPPED = "stopped"
    CRASHED = "crashed"  # a pid file is left but its process is gone: it died without `down`


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (an exited child not reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return ") Z " not in Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False


def read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def port_open(port: int, host: str = HOST, timeout: float = 0.3) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        return s.connect_ex((host, port)) == 0


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a server child process: ours without the secrets it does not need
    (model API keys, tokens, passwords: `ps e` and /proc/PID/environ show a process's
    environment). What a child does need (the model server's own key) comes in `extra`."""
    env = {k: v for k, v in os.environ.items() if not _SECRET_VAR.search(k)}
    return {**env, **extra}


def log_tail(files: Sequence[Path], lines: int = 30) -> str:
    """The last lines of the first of `files` that has any."""
    for f in files:
        if f.exists() and f.stat().st_size:
            return "\n".join(f.read_text(errors="replace").splitlines()[-lines:])
    return ""


def refuse_taken(ports: Sequence[int], fix: str, error: type[ServerError] = ServerError) -> None:
    """Before a launch: a port something else listens on is a clear error, not a crash."""
    for port in ports:
        if port_open(port):
            raise error(f"port {port} on {HOST} is taken by another process", fix)


@dataclass(frozen=True)
class StartLimit:
    """When a launched server that does not answer is given up: after `stall_s` without
    progress (without an answer, when there is no `progress` probe), or after `max_s` in all."""

    stall_s: float
    max_s: float | None = None
    progress: Callable[[], int] | None = None  # grows while the server makes progress


class NotReady(Exception):
    """A launched server did not become ready: it died, or its deadline passed (`why` says
    which, as a phrase: "made no progress for 60 s", "did not answer within 120 s")."""

    def __init__(self, why: str, died: bool = False) -> None:
        self.why = why
        self.died = died
        super().__init__(why)


@dataclass(frozen=True)
class Stopped:
    was_alive: bool
    killed: bool  # it did not end on SIGTERM within the grace time


@dataclass(frozen=True)
class Supervisor:
    """The files of one supervised server instance and the operations on its process.

    `keep_crashed`: a server that dies while starting keeps its pid file, so that `status`
    says `crashed` and shows its log (the Neo4j server); otherwise its files are cleared.
    """

    pid_file: Path
    logs: tuple[Path, ...]  # read in this order for a tail
    lock_file: Path
    state_file: Path | None = None
    keep_crashed: bool = False

    def pid(self) -> int | None:
        return read_pid(self.pid_file)

    def state(self, answers: Callable[[], bool]) -> tuple[State, int | None]:
        """Stopped (no pid file), crashed (its process is gone), else running or starting
        by `answers()` (asked only of a live process)."""
        pid = self.pid()
        if pid is None:
            return State.STOPPED, None
        if not alive(pid):
            return State.CRASHED, pid
        return (State.RUNNING if answers() else State.STARTING), pid

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(self.logs, lines)

    def read_state(self, model: type[M]) -> M | None:
        if self.state_file is None:
            return None
        try:
            return model.model_validate_json(self.state_file.read_text())
        except (FileNotFoundError, ValueError):
            return None

    def write_state(self, state: BaseModel) -> None:
        if self.state_file is not None:
            self.state_file.write_text(state.model_dump_json())

    def clear(self) -> None:
        """Forget the process: its pid file and state file go."""
        self.pid_file.unlink(missing_ok=True)
        if self.state_file is not None:
            self.state_file.unlink(missing_ok=True)

    @contextlib.contextmanager
    def start_lock(self) -> Iterator[None]:
        """One start at a time per instance: a second start waits for the first and then
        finds its server running (or failed and cleared)."""
        private_dir(self.lock_file.parent)
        with open(self.lock_file, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def launch(
        self, argv: list[str], output: Path, cwd: Path, env: dict[str, str], umask: int = -1
    ) -> subprocess.Popen[bytes]:
        """Start the server in a session of its own (it outlives this command, and its whole
        process group can be stopped), its output appended to `output`; write its pid."""
        with open(output, "ab") as out:
            proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=cwd,
                env=env,
                umask=umask,
            )
        self.pid_file.write_text(str(proc.pid))
        return proc

    @contextlib.contextmanager
    def stopped_on_failure(self, proc: subprocess.Popen[bytes]) -> Iterator[None]:
        """Around the wait for a server this command launched: if the wait fails or is
        interrupted (Ctrl-C), the server's process group is stopped and its files cleared, so
        nothing keeps running behind the user's back. A `ServerError` for a server that was
        still alive says so in its fix."""
        try:
            yield
        except BaseException as exc:
            was_running = proc.poll() is None
            _end_group(proc)
            if was_running or not self.keep_crashed:
                self.clear()
            if was_running and isinstance(exc, ServerError):
                exc.fix = (
                    f"{exc.fix}; the unanswering server was stopped, nothing is left running"
                ).lstrip("; ")
            raise

    def wait_ready(
        self,
        pid: int,
        t0: float,
        answers: Callable[[], bool],
        limit: StartLimit,
        proc: subprocess.Popen[bytes] | None = None,
    ) -> float:
        """Poll until `answers()`; seconds since `t0` (when the process was launched). Raises
        `NotReady` if the process dies or the limit passes."""
        hard = t0 + limit.max_s if limit.max_s is not None else None
        size = limit.progress() if limit.progress else 0
        last_progress = t0
        while True:
            now = time.monotonic()
            if (proc is not None and proc.poll() is not None) or not alive(pid):
                raise NotReady("died while starting", died=True)
            if answers():
                return time.monotonic() - t0
            if limit.progress is not None and (grown := limit.progress()) != size:
                size, last_progress = grown, now
            if now - last_progress > limit.stall_s:
                raise NotReady(
                    f"made no progress for {limit.stall_s:.0f} s"
                    if limit.progress is not None
                    else f"did not answer within {limit.stall_s:.0f} s"
                )
            if hard is not None and now > hard:
                raise NotReady(f"did not answer within {hard - t0:.0f} s")
            time.sleep(0.25)

    def stop(self, timeout: float) -> Stopped:
        """SIGTERM, then SIGKILL after `timeout` seconds; the files are cleared either way."""
        pid = self.pid()
        if pid is None:
            return Stopped(was_alive=False, killed=False)
        was_alive, killed = alive(pid), False
        if was_alive:
            _signal(pid, signal.SIGTERM)
            killed = not _gone_within(pid, timeout)
            if killed:
                _signal(pid, signal.SIGKILL)
                _gone_within(pid, 30.0)
        self.clear()
        return Stopped(was_alive, killed)


def _signal(pid: int, sig: signal.Signals) -> None:
    """Signal the server's whole process group when it leads one (it was launched in a
    session of its own), else only that pid (a pid file from elsewhere)."""
    with contextlib.suppress(ProcessLookupError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def _end_group(proc: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """Stop the process group of a server this command launched: SIGTERM, then SIGKILL. The
    group outlives a leader that died, so its children are stopped too."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=grace_s)
