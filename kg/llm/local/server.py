"""Start, watch and stop the local OpenAI-compatible model server (llama.cpp via xllamacpp).

One server per port: `<cache>/llm-server-<port>/` holds its pid file, a state file (which
model, which settings) and its log. The process (`kg.llm.local.serve`) runs in a session of
its own, listening on 127.0.0.1 only with an API key (`kg.llm.local.key`), and outlives the
command that started it until `kg llm down`. A start that fails leaves nothing running.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import httpx
from pydantic import BaseModel

from kg.llm.local.errors import LocalModelError
from kg.llm.local.key import api_key
from kg.llm.local.provision import model_path
from kg.llm.local.registry import ModelRef, resolve_model
from kg.llm.local.serve import KEY_ENV
from kg.llm.local.settings import LocalLLMSettings
from kg.processes import alive as _alive
from kg.processes import port_open, read_pid
from kg.server.process import child_env

# llama.cpp and its HTTP server, a prebuilt wheel (no compiler needed).
SERVER_MODULES = ("xllamacpp",)
INSTALL_FIX = "install it: pip install xllamacpp (a prebuilt wheel), or run scripts/setup.sh"
GGUF_MAGIC = b"GGUF"


class State(StrEnum):
    RUNNING = "running"
    STARTING = "starting"  # process alive, not answering yet (loading the model)
    STOPPED = "stopped"
    CRASHED = "crashed"  # a pid file is left but its process is gone: it died without `down`


class ServerState(BaseModel):
    """What the state file records about the running server."""

    pid: int
    model: str
    path: str
    port: int
    n_ctx: int  # per slot
    threads: int
    parallel: int = 1  # slots
    started_at: float


@dataclass(frozen=True)
class Home:
    root: Path

    @property
    def pid_file(self) -> Path:
        return self.root / "server.pid"

    @property
    def state_file(self) -> Path:
        return self.root / "server.json"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    @property
    def lock(self) -> Path:
        return self.root / "start.lock"


@dataclass
class Status:
    state: State
    pid: int | None
    home: Home
    info: ServerState | None
    base_url: str


def home_of(settings: LocalLLMSettings) -> Home:
    return Home(settings.resolved_server_home)


def log_tail(home: Home, lines: int = 30) -> str:
    if home.log.exists():
        return "\n".join(home.log.read_text(errors="replace").splitlines()[-lines:])
    return ""


def _read_pid(home: Home) -> int | None:
    return read_pid(home.pid_file)


def _read_state(home: Home) -> ServerState | None:
    try:
        return ServerState.model_validate_json(home.state_file.read_text())
    except (FileNotFoundError, ValueError):
        return None


def answers(settings: LocalLLMSettings, timeout: float = 2.0) -> bool:
    """The server has loaded its model and answers (`GET /health`, no key needed)."""
    try:
        r = httpx.get(f"http://127.0.0.1:{settings.port}/health", timeout=timeout)
    except httpx.HTTPError:
        return False
    return r.status_code == 200


def status(settings: LocalLLMSettings) -> Status:
    home = home_of(settings)
    pid = _read_pid(home)
    info = _read_state(home)
    if pid is None:
        return Status(State.STOPPED, None, home, None, settings.base_url)
    if not _alive(pid):
        return Status(State.CRASHED, pid, home, info, settings.base_url)
    state = State.RUNNING if answers(settings) else State.STARTING
    return Status(state, pid, home, info, settings.base_url)


def missing_modules() -> list[str]:
    return [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]


def server_command(path: Path, name: str, settings: LocalLLMSettings) -> list[str]:
    return [
        sys.executable,
        "-m",
        "kg.llm.local.serve",
        "--model",
        str(path),
        "--alias",
        name,
        "--port",
        str(settings.port),
        "--n-ctx",
        str(settings.n_ctx),
        "--threads",
        str(settings.threads),
        "--parallel",
        str(settings.parallel),
    ]


def check_gguf(path: Path) -> None:
    """A clear error before launching for a file that cannot be a GGUF model."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise LocalModelError(f"cannot read GGUF file {path}: {exc}", "check the path") from exc
    if head != GGUF_MAGIC:
        raise LocalModelError(
            f"{path} is not a GGUF model file (it does not start with {GGUF_MAGIC!r})",
            "give the path of a GGUF model file (llama.cpp format)",
        )


def _why_it_died(home: Home, settings: LocalLLMSettings, path: Path) -> tuple[str, str]:
    """(problem, fix) read from llama.cpp's log of a server that exited while starting."""
    text = log_tail(home, 60)
    if "couldn't bind" in text:
        return (
            f"port {settings.port} on 127.0.0.1 is taken by another process",
            "stop that process, or choose a free port (--port, KG_LLM_PORT)",
        )
    if "failed to load model" in text or "gguf_init" in text:
        return (
            f"llama.cpp could not load {path}: the GGUF file is damaged, cut short or of an "
            "unsupported kind",
            "download the file again (`kg llm pull` for a registered model), or give another "
            "GGUF file",
        )
    return (
        "the local model server died while starting",
        f"read the log below ({home.log})",
    )


def _differences(
    info: ServerState | None, ref: ModelRef, settings: LocalLLMSettings, exact: bool
) -> list[str]:
    """What the running server does not serve as asked (empty: it is the same server).
    Settings left at their defaults ask nothing: any running server of the model will do."""
    if info is None:
        return []
    asked: dict[str, object] = {"model": ref.name}
    for name in ("n_ctx", "threads", "parallel"):
        if exact and name in settings.model_fields_set:
            asked[name] = getattr(settings, name)
    running = {k: getattr(info, k) for k in asked}
    return [f"{k} {running[k]} (asked: {v})" for k, v in asked.items() if running[k] != v]


def start(
    settings: LocalLLMSettings, model: str | None = None, exact: bool = True
) -> tuple[Status, float]:
    """Start the server with `model` unless it runs already; wait until it answers.

    Returns (status, seconds from launching the process until it answered; 0 if it ran).
    One start at a time per port (a lock file): a second `kg llm up` waits for the first and
    then finds the server running. A start that fails stops the process it launched.
    `exact=False` (a client's autostart): any running server of the model will do.
    """
    ref = resolve_model(model or settings.model)
    home = home_of(settings)
    home.root.mkdir(parents=True, exist_ok=True)
    with open(home.lock, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _start_locked(settings, ref, home, exact)


def _start_locked(
    settings: LocalLLMSettings, ref: ModelRef, home: Home, exact: bool
) -> tuple[Status, float]:
    current = status(settings)
    if current.state in (State.RUNNING, State.STARTING):
        if differences := _differences(current.info, ref, settings, exact):
            raise LocalModelError(
                f"the local model server on port {settings.port} runs with "
                + ", ".join(differences),
                "stop it with `kg llm down` first, or start another on a free port "
                "(--port, KG_LLM_PORT)",
            )
        if current.state is State.RUNNING:
            return current, 0.0
        return wait_ready(settings, current.pid or 0, time.monotonic())
    if current.state is State.CRASHED:
        _clear(home)
    if port_open(settings.port):
        raise LocalModelError(
            f"port {settings.port} on 127.0.0.1 is taken by another process",
            "stop that process, or choose a free port (--port, KG_LLM_PORT)",
        )
    if missing := missing_modules():
        raise LocalModelError(
            f"the local model server needs xllamacpp ({', '.join(missing)} not importable)",
            INSTALL_FIX,
        )
    path = model_path(ref, settings)  # may download: before the readiness deadline starts
    check_gguf(path)
    if home.log.exists():
        home.log.replace(home.log.with_name("server.log.1"))
    # no other secret reaches the model server (child_env strips API keys, tokens, passwords)
    env = child_env(**{KEY_ENV: api_key(settings), "OMP_WAIT_POLICY": "passive"})
    with open(home.log, "ab") as out:
        proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            server_command(path, ref.name, settings),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=home.root,
            env=env,
        )
    launched = time.monotonic()
    home.pid_file.write_text(str(proc.pid))
    home.state_file.write_text(
        ServerState(
            pid=proc.pid,
            model=ref.name,
            path=str(path),
            port=settings.port,
            n_ctx=settings.n_ctx,
            threads=settings.threads,
            parallel=settings.parallel,
            started_at=time.time(),
        ).model_dump_json()
    )
    try:
        return wait_ready(settings, proc.pid, launched, proc, path)
    except LocalModelError:
        stop(settings)  # nothing is left running after a failed start
        raise


def wait_ready(
    settings: LocalLLMSettings,
    pid: int,
    t0: float,
    proc: subprocess.Popen | None = None,
    path: Path | None = None,
) -> tuple[Status, float]:
    """Poll until the server answers; `t0` is when the process was launched."""
    home = home_of(settings)
    deadline = t0 + settings.start_timeout_s
    while time.monotonic() < deadline:
        if (proc is not None and proc.poll() is not None) or not _alive(pid):
            problem, fix = _why_it_died(home, settings, path or Path("?"))
            raise LocalModelError(problem, fix, log_tail=log_tail(home))
        if answers(settings, timeout=1.0):
            return status(settings), time.monotonic() - t0
        time.sleep(0.25)
    raise LocalModelError(
        f"the local model server did not answer within {settings.start_timeout_s:.0f} s",
        f"raise KG_LLM_START_TIMEOUT_S on a slow machine, or read the log ({home.log})",
        log_tail=log_tail(home),
    )


def _clear(home: Home) -> None:
    home.pid_file.unlink(missing_ok=True)
    home.state_file.unlink(missing_ok=True)


def stop(settings: LocalLLMSettings, timeout: float = 20.0) -> bool:
    """Stop cleanly (SIGTERM, SIGKILL after `timeout`). False if nothing was running."""
    home = home_of(settings)
    pid = _read_pid(home)
    if pid is None:
        return False
    was_alive = _alive(pid)
    if was_alive:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            while _alive(pid):
                time.sleep(0.05)
    _clear(home)
    return was_alive


def describe(st: Status) -> dict[str, object]:
    """Status as plain data (for `kg llm status --json`)."""
    d: dict[str, object] = {
        "state": st.state.value,
        "pid": st.pid,
        "base_url": st.base_url,
        "log": str(st.home.log),
    }
    if st.info is not None:
        d.update(json.loads(st.info.model_dump_json()))
    return d
