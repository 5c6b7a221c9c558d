"""Background server processes, told apart from the outside: is a pid alive, what pid file says,
is a port taken. Shared by the local Neo4j server (`kg.server`) and the local model server
(`kg.llm.local`)."""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

# The last SIGTERM received by `stop_signals_interrupt` (None: none yet).
received: str | None = None


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


def port_open(port: int, host: str = "127.0.0.1", timeout: float = 0.3) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        return s.connect_ex((host, port)) == 0


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """SIGTERM stops the block as Ctrl-C does: it calls whatever SIGINT handler is current
    (Python's, which raises KeyboardInterrupt, or asyncio's, which cancels the running main
    task first), so runs and builds close their records `interrupted` and give their leases
    back instead of dying with the default action. `received` names the signal."""
    global received
    received = None
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        global received
        received = signal.Signals(signum).name
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old_term)


def stop_signal_name() -> str:
    """The signal that stopped the block: SIGTERM when `stop_signals_interrupt` saw one, else
    SIGINT (Ctrl-C keeps Python's own handler, which asyncio needs to cancel cleanly)."""
    return received or "SIGINT"
