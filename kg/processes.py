"""Background server processes, told apart from the outside: is a pid alive, what pid file says,
is a port taken. Shared by the local Neo4j server (`kg.server`) and the local model server
(`kg.llm.local`)."""

from __future__ import annotations

import os
import socket
from pathlib import Path


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
