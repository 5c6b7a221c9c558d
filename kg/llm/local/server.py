"""Start, watch and stop the local OpenAI-compatible model server (llama.cpp via xllamacpp).

One server per port: `<cache>/llm-server-<port>/` holds its pid file, a state file (which
model, which settings) and its log. The process (`kg.llm.local.serve`) runs in a session of
its own, listening on 127.0.0.1 only with an API key (`kg.llm.local.key`), and outlives the
command that started it until `kg llm down`. A start that fails leaves nothing running.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from pydantic import BaseModel

from kg.llm.local.errors import LocalModelError
from kg.llm.local.key import api_key
from kg.llm.local.provision import model_path
from kg.llm.local.registry import ModelRef, resolve_model
from kg.llm.local.serve import HOST, KEY_ENV, THREAD_ENV
from kg.llm.local.settings import LocalLLMSettings
from kg.supervisor import NotReady, StartLimit, State, Supervisor, child_env, refuse_taken

# llama.cpp and its HTTP server, a prebuilt wheel (no compiler needed).
SERVER_MODULES = ("xllamacpp",)
INSTALL_FIX = "install it: pip install xllamacpp (a prebuilt wheel), or run scripts/setup.sh"
GGUF_MAGIC = b"GGUF"
PORT_FIX = "stop that process, or choose a free port (--port, KG_LLM_PORT)"


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
    """`<cache>/llm-server-<port>/`: the server's pid file, state file, log and start lock."""

    root: Path
    log: Path
    supervisor: Supervisor

    @property
    def pid_file(self) -> Path:
        return self.supervisor.pid_file


@dataclass
class Status:
    state: State
    pid: int | None
    home: Home
    info: ServerState | None
    base_url: str


def home_of(settings: LocalLLMSettings) -> Home:
    root = settings.resolved_server_home
    log = root / "server.log"
    files = Supervisor(
        pid_file=root / "server.pid",
        logs=(log,),
        lock_file=root / "start.lock",
        state_file=root / "server.json",
    )
    return Home(root, log, files)


def log_tail(home: Home, lines: int = 30) -> str:
    return home.supervisor.log_tail(lines)


def answers(settings: LocalLLMSettings, timeout: float = 2.0) -> bool:
    """The server has loaded its model and answers (`GET /health`, no key needed)."""
    try:
        r = httpx.get(f"http://{HOST}:{settings.port}/health", timeout=timeout)
    except httpx.HTTPError:
        return False
    return r.status_code == 200


def status(settings: LocalLLMSettings) -> Status:
    home = home_of(settings)
    sup = home.supervisor
    state, pid = sup.state(lambda: answers(settings))
    info = sup.read_state(ServerState) if pid is not None else None
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
        return f"port {settings.port} on {HOST} is taken by another process", PORT_FIX
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
    with home.supervisor.start_lock():
        return _start_locked(settings, ref, home, exact)


def _start_locked(
    settings: LocalLLMSettings, ref: ModelRef, home: Home, exact: bool
) -> tuple[Status, float]:
    sup = home.supervisor
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
        sup.clear()
    refuse_taken((settings.port,), PORT_FIX, LocalModelError)
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
    env = child_env(**{KEY_ENV: api_key(settings), **THREAD_ENV})
    proc = sup.launch(server_command(path, ref.name, settings), home.log, cwd=home.root, env=env)
    launched = time.monotonic()
    sup.write_state(
        ServerState(
            pid=proc.pid,
            model=ref.name,
            path=str(path),
            port=settings.port,
            n_ctx=settings.n_ctx,
            threads=settings.threads,
            parallel=settings.parallel,
            started_at=time.time(),
        )
    )
    with sup.stopped_on_failure(proc):  # nothing is left running after a failed start
        return wait_ready(settings, proc.pid, launched, proc, path)


def wait_ready(
    settings: LocalLLMSettings,
    pid: int,
    t0: float,
    proc: subprocess.Popen[bytes] | None = None,
    path: Path | None = None,
) -> tuple[Status, float]:
    """Poll until the server answers; `t0` is when the process was launched."""
    home = home_of(settings)
    sup = home.supervisor
    try:
        secs = sup.wait_ready(
            pid,
            t0,
            lambda: answers(settings, timeout=1.0),
            StartLimit(stall_s=settings.start_timeout_s),
            proc,
        )
    except NotReady as exc:
        if exc.died:
            problem, fix = _why_it_died(home, settings, path or Path("?"))
        else:
            problem = f"the local model server {exc.why}"
            fix = f"raise KG_LLM_START_TIMEOUT_S on a slow machine, or read the log ({home.log})"
        raise LocalModelError(problem, fix, log_tail=sup.log_tail()) from None
    return status(settings), secs


def stop(settings: LocalLLMSettings, timeout: float = 20.0) -> bool:
    """Stop cleanly (SIGTERM, SIGKILL after `timeout`). False if nothing was running."""
    return home_of(settings).supervisor.stop(timeout).was_alive


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
