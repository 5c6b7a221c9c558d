"""Pytest plugin: the `local_llm` fixture, a real local model server for the session.

The server is provisioned and started through the product (`kg.llm.local.server.start`: the
model's GGUF file from its PyPI wheel, llama.cpp's server (xllamacpp) on
127.0.0.1:KG_LLM_PORT), and stopped at the end unless it was already running. Tests that use it
are marked `local_llm`; they skip, saying why, only when xllamacpp is not installed.
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
            f"xllamacpp is not installed ({', '.join(missing)} not importable): "
            "scripts/setup.sh installs it"
        )
    settings = get_local_settings()
    before = server.status(settings).state
    server.start(settings)
    _smoke(settings, server)
    yield settings
    if before is not server.State.RUNNING:
        server.stop(settings)


def _smoke(settings, server) -> None:
    """One short generation: an engine that crashes when generating (seen with a
    `-march=native` build of llama.cpp) fails every local test with this message, not a
    hundred."""
    import httpx

    from kg.llm.local.key import auth_headers

    try:
        httpx.post(
            f"{settings.base_url}/chat/completions",
            timeout=300,
            headers=auth_headers(settings),
            json={"model": "x", "max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]},
        )
    except httpx.HTTPError:
        pass
    st = server.status(settings)
    if st.state is not server.State.RUNNING:
        tail = server.log_tail(st.home, 5)
        server.stop(settings)
        pytest.fail(
            f"the local model server {st.state.value} on its first generation "
            f"(log {st.home.log}):\n{tail}",
            pytrace=False,
        )
