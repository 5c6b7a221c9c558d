"""Servers of a benchmark's own: a Neo4j with an empty data directory and a local model
server, each on free ports chosen by the OS, started through the product and stopped at the
end (also on Ctrl-C or an error). Nothing of the user's servers, data or ports is touched;
the provisioned jars and the GGUF file are shared through the usual cache directory.

    with own_servers(llm_threads=1) as own:
        own.store  # a Store on the empty database (schema applied)
        own.llm    # LocalLLMSettings of the running model server

The `KG_*` variables of this process are pointed at these servers while the block runs, so
the product's code and `kg` subprocesses started with `own.env` use them.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def free_port() -> int:
    """A port nothing listens on now (from the OS's ephemeral range, never a fixed one)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def load() -> str:
    """The machine's load, printed beside every timing figure."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


@dataclass
class Own:
    root: Path
    env: dict[str, str]
    store: Any = None
    llm: Any = None
    started: dict[str, float] = field(default_factory=dict)


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def own_servers(
    *, neo4j: bool = True, llm: bool = True, llm_threads: int = 1, keep: Path | None = None
) -> Iterator[Own]:
    """Start the servers asked for; stop them (and delete their data) when the block ends."""
    with ExitStack() as stack:
        root = keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kg-bench-")))
        env = {
            "KG_BOLT_PORT": str(free_port()),
            "KG_HTTP_PORT": str(free_port()),
            "KG_SERVER_HOME": str(root / "neo4j"),
            "KG_CONFIG_DIR": str(root / "config"),  # its own password file
            "KG_HEAP_SIZE": "768m",  # a few hundred questions: far below the 2 GB default
            "KG_PAGECACHE_SIZE": "256m",
            # no class-data archive: writing one at the first stop takes minutes under load
            "KG_CLASS_DATA_SHARING": "false",
            "KG_LLM_PORT": str(free_port()),
            "KG_LLM_SERVER_HOME": str(root / "llm"),
            "KG_LLM_THREADS": str(llm_threads),
        }
        for name in ("KG_NEO4J_URI", "NEO4J_URI", "KG_NEO4J_PASSWORD", "NEO4J_PASSWORD"):
            if os.environ.get(name):
                raise SystemExit(f"unset {name}: this benchmark starts a Neo4j of its own")
        stack.enter_context(_environ(env))
        own = Own(root, {**os.environ, **env})
        if neo4j:
            from kg.server import process
            from kg.settings import get_settings
            from kg.store import Store

            settings = get_settings()
            stack.callback(process.stop, settings)
            report = process.start(settings)
            own.started["neo4j"] = report.provision_s + report.start_s
            own.store = stack.enter_context(Store(settings))
            own.store.ensure_schema()
        from kg.llm.local import get_local_settings, server

        own.llm = get_local_settings()
        stack.callback(server.stop, own.llm)  # also when the caller started it itself
        if llm:
            t0 = time.monotonic()
            server.start(own.llm)
            own.started["llm"] = time.monotonic() - t0
        yield own
