"""Start, watch and stop the local OpenAI-compatible model server (llama-cpp-python).

One server per port: `<cache>/llm-server-<port>/` holds its pid file, a state file (which
model, which settings) and its log. The process runs in a session of its own, listening on
127.0.0.1 only, and outlives the command that started it until `kg llm down`.
"""

from __future__ import annotations

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
from kg.llm.local.provision import model_path
from kg.llm.local.registry import ModelRef, resolve_model
from kg.llm.local.settings import LocalLLMSettings
from kg.processes import alive as _alive
from kg.processes import port_open, read_pid

# What `llama-cpp-python[server]` brings; all must import for `python -m llama_cpp.server`.
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
INSTALL_FIX = (
    "install it: pip install 'llama-cpp-python[server]' (builds from source with "
    "cmake and gcc, about 11 min on 2 cores; pip caches the wheel), or run "
    "scripts/setup.sh"
)


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
    n_ctx: int
    threads: int
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
    """The OpenAI-compatible API answers (`GET /v1/models`)."""
    try:
        r = httpx.get(f"{settings.base_url}/models", timeout=timeout)
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
        "llama_cpp.server",
        "--model",
        str(path),
        "--model_alias",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(settings.port),
        "--n_ctx",
        str(settings.n_ctx),
        "--n_threads",
        str(settings.threads),
        "--n_threads_batch",
        str(settings.threads),
        # a new request must never cut off the one being generated
        "--interrupt_requests",
        "False",
    ]


def _same_model(info: ServerState | None, ref: ModelRef) -> bool:
    return info is None or info.model == ref.name


def start(settings: LocalLLMSettings, model: str | None = None) -> tuple[Status, float]:
    """Start the server with `model` unless it runs already; wait until it answers.

    Returns (status, seconds from launching the process until it answered; 0 if it ran).
    """
    ref = resolve_model(model or settings.model)
    current = status(settings)
    if current.state in (State.RUNNING, State.STARTING):
        if not _same_model(current.info, ref):
            running = current.info.model if current.info else "?"
            raise LocalModelError(
                f"the local model server on port {settings.port} serves {running}, not {ref.name}",
                f"stop it with `kg llm down`, or serve {ref.name} on another port (KG_LLM_PORT)",
            )
        if current.state is State.RUNNING:
            return current, 0.0
        return wait_ready(settings, current.pid or 0, time.monotonic())
    home = home_of(settings)
    if current.state is State.CRASHED:
        _clear(home)
    if port_open(settings.port):
        raise LocalModelError(
            f"port {settings.port} on 127.0.0.1 is taken by another process",
            "stop that process, or choose a free port with KG_LLM_PORT",
        )
    if missing := missing_modules():
        raise LocalModelError(
            f"the local model server needs llama-cpp-python[server] ({', '.join(missing)} "
            "not importable)",
            INSTALL_FIX,
        )
    path = model_path(ref, settings)  # may download: before the readiness deadline starts
    home.root.mkdir(parents=True, exist_ok=True)
    if home.log.exists():
        home.log.replace(home.log.with_name("server.log.1"))
    with open(home.log, "ab") as out:
        proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            server_command(path, ref.name, settings),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=home.root,
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
            started_at=time.time(),
        ).model_dump_json()
    )
    return wait_ready(settings, proc.pid, launched, proc)


def wait_ready(
    settings: LocalLLMSettings, pid: int, t0: float, proc: subprocess.Popen | None = None
) -> tuple[Status, float]:
    """Poll until the API answers; `t0` is when the process was launched."""
    home = home_of(settings)
    deadline = t0 + settings.start_timeout_s
    while time.monotonic() < deadline:
        if (proc is not None and proc.poll() is not None) or not _alive(pid):
            raise LocalModelError(
                "the local model server died while starting",
                f"read the log below ({home.log}); `kg llm status` shows it as crashed",
                log_tail=log_tail(home),
            )
        if answers(settings, timeout=1.0):
            return status(settings), time.monotonic() - t0
        time.sleep(0.25)
    raise LocalModelError(
        f"the local model server did not answer within {settings.start_timeout_s:.0f} s",
        "raise KG_LLM_START_TIMEOUT_S on a slow machine, or read the log "
        f"({home.log}); `kg llm down` stops it",
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
