"""Pytest plugin: the `llm_server` fixture (a fresh local OpenAI-compatible server per test).

    def test_x(llm_server):
        llm_server.add_rule(match="Extract facts", reply={"facts": [...]})
        client = LLMClient(llm_server.config(role="builder"))
        ...
        assert len(llm_server.requests) == 1

See tests/llm_server.py for the rule API (status codes, Retry-After, delays, malformed JSON).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llm_server import LLMTestServer


@pytest.fixture
def llm_server() -> Iterator[LLMTestServer]:
    with LLMTestServer() as server:
        yield server
