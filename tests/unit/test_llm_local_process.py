"""The local server's whole life cycle with a stand-in process: `kg llm up` launches the
scripted OpenAI-compatible server (tests/llm_server.py) instead of llama.cpp's, so start,
readiness, `--model local/...`, crash detection, restart and stop run for real without a model
build. The same path with the real model is in tests/integration/test_local_llm_server.py."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.cli.main import app
from kg.llm import LLMClient, LLMConfig, ServerUnreachable
from kg.llm.local import LocalModelError, get_local_settings, server

SCRIPTED = Path(__file__).resolve().parents[1] / "llm_server.py"


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KG_LLM_PORT", str(port))
    monkeypatch.setattr(server, "SERVER_MODULES", ("json",))

    def command(path, name, settings):
        return [
            sys.executable,
            str(SCRIPTED),
            "--port",
            str(settings.port),
            "--until-killed",
            "--reply",
            f"served by {name}",
        ]

    monkeypatch.setattr(server, "server_command", command)
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("KG_LLM_MODEL", str(model))
    settings = get_local_settings()
    yield settings
    server.stop(settings)


def test_up_status_route_crash_restart_down(stand_in):
    runner = CliRunner()
    up = runner.invoke(app, ["llm", "up"])
    assert up.exit_code == 0, up.output
    assert "started in" in up.output and f"127.0.0.1:{stand_in.port}" in up.output
    st = server.status(stand_in)
    assert st.state is server.State.RUNNING and st.info and st.info.model == "stand-in"
    again = runner.invoke(app, ["llm", "up"])
    assert again.exit_code == 0 and "already running" in again.output

    model = f"local/{stand_in.model}"
    client = LLMClient(LLMConfig(model=model, cache=False, max_retries=3))
    assert client.complete_sync([{"role": "user", "content": "hi"}]).text == ("served by stand-in")
    assert client.shared_limit == (f"local-llm:{stand_in.base_url}", stand_in.parallel)

    os.kill(st.pid, signal.SIGKILL)  # the server dies under the client
    deadline = time.monotonic() + 10
    while server.status(stand_in).state is not server.State.CRASHED:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    status = runner.invoke(app, ["llm", "status"])
    assert status.exit_code == 3 and "crashed" in status.output
    t0 = time.monotonic()
    with pytest.raises(ServerUnreachable) as info:
        client.complete_sync([{"role": "user", "content": "hi"}])
    assert time.monotonic() - t0 < 5  # no retry against a dead process
    assert "crashed" in str(info.value) and "kg llm up" in str(info.value)

    # `--model local/...` starts it again by itself
    revived = LLMClient(LLMConfig(model=model, cache=False))
    assert revived.complete_sync([{"role": "user", "content": "hi"}]).text
    assert server.status(stand_in).state is server.State.RUNNING
    down = runner.invoke(app, ["llm", "down"])
    assert down.exit_code == 0 and "stopped" in down.output
    assert server.status(stand_in).state is server.State.STOPPED


def test_another_model_on_the_same_port_is_refused(stand_in, tmp_path):
    server.start(stand_in)
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    with pytest.raises(LocalModelError) as info:
        server.start(stand_in, str(other))
    assert "runs with model stand-in (asked: other)" in info.value.message
    assert "kg llm down" in info.value.fix and "KG_LLM_PORT" in info.value.fix


def test_a_server_that_dies_while_starting_shows_its_log(stand_in, monkeypatch):
    def dying(path, name, settings):
        return [
            sys.executable,
            "-c",
            "import sys; print('llama_model_load: bad magic'); sys.exit(1)",
        ]

    monkeypatch.setattr(server, "server_command", dying)
    with pytest.raises(LocalModelError) as info:
        server.start(stand_in)
    assert "died while starting" in info.value.message
    assert "bad magic" in info.value.log_tail
    assert server.status(stand_in).state is server.State.STOPPED  # nothing left behind


def test_readiness_deadline_counts_from_launch(stand_in, monkeypatch):
    monkeypatch.setattr(
        server,
        "server_command",
        lambda p, n, s: [sys.executable, "-c", "import time; time.sleep(30)"],
    )
    slow = stand_in.model_copy(update={"start_timeout_s": 1.0})
    t0 = time.monotonic()
    with pytest.raises(LocalModelError) as info:
        server.start(slow)
    assert time.monotonic() - t0 < 10
    assert "did not answer within 1 s" in info.value.message
    assert "KG_LLM_START_TIMEOUT_S" in info.value.fix
    assert server.status(slow).state is server.State.STOPPED  # the slow process was stopped


def test_a_second_up_with_other_settings_is_refused_and_starts_nothing(stand_in):
    runner = CliRunner()
    assert runner.invoke(app, ["llm", "up", "--parallel", "2"]).exit_code == 0
    first = server.status(stand_in)
    assert first.info and first.info.parallel == 2
    again = runner.invoke(app, ["llm", "up", "--parallel", "1", "--threads", "1"])
    assert again.exit_code == 1 and "runs with parallel 2 (asked: 1)" in again.output
    assert "kg llm down" in again.output
    plain = runner.invoke(app, ["llm", "up"])  # no settings asked: the running one will do
    assert plain.exit_code == 0 and "already running" in plain.output
    assert server.status(stand_in).pid == first.pid
    # clients of the server keep as many requests in flight as it has slots
    client = LLMClient(LLMConfig(model=f"local/{stand_in.model}", cache=False))
    assert client.shared_limit == (f"local-llm:{stand_in.base_url}", 2)


def test_two_starts_at_once_launch_one_server(stand_in):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: server.start(stand_in), range(2)))
    pids = {st.pid for st, _ in results}
    assert len(pids) == 1 and sorted(secs == 0 for _, secs in results) == [False, True]


def test_a_bind_failure_in_the_log_is_reported_as_a_taken_port(stand_in, monkeypatch):
    def refused(path, name, settings):
        line = "srv start: couldn't bind HTTP server socket, hostname: 127.0.0.1"
        return [sys.executable, "-c", f"import sys; print({line!r}); sys.exit(1)"]

    monkeypatch.setattr(server, "server_command", refused)
    with pytest.raises(LocalModelError) as info:
        server.start(stand_in)
    assert f"port {stand_in.port} on 127.0.0.1 is taken" in info.value.message
    assert server.status(stand_in).state is server.State.STOPPED
