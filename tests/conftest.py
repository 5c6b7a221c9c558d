"""Shared fixtures.

Integration tests (marked `integration`, under tests/integration/) get a real Neo4j server:
an existing one (NEO4J_URI), else Docker where an engine answers, else the Maven-provisioned
local server (`kg db up`). The database is wiped between test modules.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest_plugins = ["llm_fixtures", "local_llm_fixtures"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# A shell starts a background job (`cmd &`) with SIGINT ignored, and Python then keeps it
# ignored: Ctrl-C tests would see nothing, and the `kg` processes they interrupt would inherit
# the ignore. The suite tests Ctrl-C as a terminal delivers it, however pytest was started.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def neo4j_settings(request):
    from neo4j_fixture import docker_available, provision_server

    from kg.settings import get_settings

    if get_settings().is_local and docker_available():
        return request.getfixturevalue("docker_neo4j_settings")
    return provision_server()


@pytest.fixture(scope="session")
def docker_compose_file() -> str:
    return str(Path(__file__).resolve().parents[1] / "docker" / "docker-compose.yml")


@pytest.fixture(scope="session")
def docker_neo4j_settings(docker_services):
    """Neo4j + GDS in Docker (pytest-docker), used where a Docker engine answers."""
    from neo4j_fixture import docker_settings, wait_for_docker_neo4j

    settings = docker_settings(docker_services.port_for("neo4j", 7687))
    docker_services.wait_until_responsive(
        timeout=180.0, pause=1.0, check=lambda: wait_for_docker_neo4j(settings)
    )
    return settings


@pytest.fixture(scope="session")
def _session_store(neo4j_settings):
    from kg.store import Store

    store = Store(neo4j_settings)
    store.ensure_schema()
    yield store
    store.close()


@pytest.fixture(scope="module")
def store(_session_store) -> Iterator:
    """A Store on an empty database (schema in place); wiped again after the module."""
    _session_store.wipe()
    yield _session_store
    _session_store.wipe()


@pytest.fixture(scope="module")
def bench(store, shared_data):
    """The module's store with the shared PerspectiveBench sample imported."""
    from construction.perspectivebench.importer import import_perspectivebench

    import_perspectivebench(store, [shared_data / "perspectivebench/sample.jsonl"])
    return store
