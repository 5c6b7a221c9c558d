"""Secrets (issue 30): none in argv or in a server child's environment, private files for
data/passwords/prompts/replies, a size-bounded LLM cache with `kg cache prune`, and the
redaction marker visible on screen."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from kg.cli.console import err_console, fail
from kg.cli.main import app
from kg.llm.cache import CachedReply, ResponseCache
from kg.server import process
from kg.server.layout import ServerHome


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_server_children_get_no_api_keys_or_passwords(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENROUTER_APIKEY", "HF_TOKEN", "KG_NEO4J_PASSWORD"):
        monkeypatch.setenv(var, "sk-secret-value-123456")
    monkeypatch.setenv("KG_BOLT_PORT", "7751")
    env = process.child_env(NEO4J_HOME="/x")
    assert "sk-secret-value-123456" not in env.values()
    assert env["KG_BOLT_PORT"] == "7751" and env["NEO4J_HOME"] == "/x" and "PATH" in env


def test_initial_password_goes_through_a_private_argument_file(tmp_path, monkeypatch):
    """neo4j-admin reads `@file` arguments: the password is never in the argv `ps` shows.
    (The real JVM reading it is run by `kg db up` in the integration tests' fixture.)"""
    seen: dict = {}

    def run(argv, **kw):
        arg = Path(argv[-1][1:])
        seen.update(argv=argv, text=arg.read_text(), mode=mode(arg), folder=mode(arg.parent))
        seen.update(env=kw["env"], umask=kw.get("umask"))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(process.subprocess, "run", run)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123456")
    home = ServerHome(tmp_path / "home")
    process._set_initial_password(Path("java"), home, tmp_path, "pw-Secret_123")
    assert not any("pw-Secret_123" in a for a in seen["argv"])
    assert seen["argv"][-1].startswith("@") and seen["text"].strip() == "pw-Secret_123"
    assert (seen["mode"], seen["folder"], seen["umask"]) == (0o600, 0o700, 0o077)
    assert "OPENAI_API_KEY" not in seen["env"]
    assert not Path(seen["argv"][-1][1:]).exists()  # removed right after


def test_cache_and_server_home_are_private_under_a_loose_umask(tmp_path):
    old = os.umask(0o022)
    try:
        cache = ResponseCache(tmp_path / "cache" / "llm.sqlite", max_bytes=10**9)
        cache.put("k", CachedReply(text="a reply", model="m"))
        cache.close()
        home = ServerHome(tmp_path / "server")
        home.create()
    finally:
        os.umask(old)
    assert mode(tmp_path / "cache") == 0o700 and mode(tmp_path / "cache" / "llm.sqlite") == 0o600
    assert mode(home.root) == 0o700 and mode(home.data) == 0o700 and mode(home.logs) == 0o700


def test_the_cache_keeps_within_its_bound_dropping_the_oldest(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite", max_bytes=10**9)
    for i in range(60):
        cache.put(f"key-{i:03}", CachedReply(text="x" * 1000, model="m"))
    full = cache.size_bytes()
    removed = cache.prune(full // 2)
    assert removed > 0 and cache.size_bytes() <= full // 2 * 0.9
    assert cache.get("key-059") is not None and cache.get("key-000") is None  # oldest first
    cache.close()


def test_kg_cache_prune_bounds_the_file(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path, max_bytes=10**9)
    for i in range(200):
        cache.put(f"key-{i:03}", CachedReply(text="y" * 2000, model="m"))
    cache.close()
    res = CliRunner().invoke(app, ["cache", "prune", "--path", str(path), "--max-mb", "0.1"])
    assert res.exit_code == 0, res.output
    assert "dropped" in res.output
    again = ResponseCache(path, max_bytes=10**9)
    assert again.size_bytes() <= 0.1 * 2**20 and len(again) > 0
    again.close()
    assert path.stat().st_size < 200 * 2000  # compacted


def test_the_redaction_marker_is_visible_on_screen():
    with err_console.capture() as cap, pytest.raises(typer.Exit):
        fail("judge model at http://x: AuthenticationError: key [redacted] refused")
    assert "key [redacted] refused" in cap.get()
