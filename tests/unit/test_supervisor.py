"""The shared process supervisor (kg/supervisor.py) with real child processes: small Python
programs that sleep, die, ignore SIGTERM or leave a child of their own behind."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from kg.errors import ServerError
from kg.supervisor import (
    NotReady,
    StartLimit,
    State,
    Supervisor,
    alive,
    child_env,
    refuse_taken,
)

SLEEPER = "import time; print('child up', flush=True); time.sleep(60)"
STUBBORN = (  # ignores SIGTERM: only SIGKILL ends it
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); time.sleep(60)"
)
PARENT_OF = (  # leaves a grandchild in its process group, its pid in argv[1]
    "import subprocess, sys, time; "
    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
    "open(sys.argv[1], 'w').write(str(c.pid)); time.sleep(60)"
)


class Info(BaseModel):
    pid: int
    model: str


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    return Supervisor(
        pid_file=tmp_path / "run" / "server.pid",
        logs=(tmp_path / "server.log", tmp_path / "console.log"),
        lock_file=tmp_path / "run" / "start.lock",
        state_file=tmp_path / "run" / "server.json",
    )


def _launch(sup: Supervisor, tmp_path: Path, code: str, *args: str):
    sup.pid_file.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", code, *args]
    return sup.launch(argv, sup.logs[-1], cwd=tmp_path, env=child_env())


def _wait_for(predicate, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def test_launch_writes_the_pid_and_stop_ends_the_process(sup, tmp_path):
    proc = _launch(sup, tmp_path, SLEEPER)
    assert sup.pid() == proc.pid
    assert sup.state(lambda: False) == (State.STARTING, proc.pid)
    assert sup.state(lambda: True) == (State.RUNNING, proc.pid)
    assert os.getpgid(proc.pid) == proc.pid  # a session of its own
    _wait_for(lambda: "child up" in sup.log_tail())  # its output goes to the log
    done = sup.stop(timeout=10)
    assert (done.was_alive, done.killed) == (True, False)
    assert proc.wait(timeout=5) is not None and not sup.pid_file.exists()
    assert sup.state(lambda: True) == (State.STOPPED, None)


def test_a_process_that_died_is_crashed_until_cleared(sup, tmp_path):
    proc = _launch(sup, tmp_path, "import sys; print('out of memory'); sys.exit(3)")
    proc.wait(timeout=10)
    assert sup.state(lambda: True) == (State.CRASHED, proc.pid)
    assert "out of memory" in sup.log_tail()
    done = sup.stop(timeout=1)
    assert (done.was_alive, done.killed) == (False, False)
    assert sup.state(lambda: True)[0] is State.STOPPED


def test_stop_kills_a_process_that_ignores_sigterm(sup, tmp_path):
    proc = _launch(sup, tmp_path, STUBBORN)
    _wait_for(lambda: "ready" in sup.log_tail())  # its SIGTERM handler is in place
    done = sup.stop(timeout=0.5)
    assert (done.was_alive, done.killed) == (True, True)
    assert proc.wait(timeout=5) == -9 and not alive(proc.pid)


def test_wait_ready_sees_a_death_and_a_deadline(sup, tmp_path):
    dying = _launch(sup, tmp_path, "import sys; sys.exit(1)")
    with pytest.raises(NotReady) as died:
        sup.wait_ready(dying.pid, time.monotonic(), lambda: False, StartLimit(30), dying)
    assert died.value.died and died.value.why == "died while starting"

    silent = _launch(sup, tmp_path, SLEEPER)
    try:
        with pytest.raises(NotReady) as late:
            sup.wait_ready(silent.pid, time.monotonic(), lambda: False, StartLimit(1.0), silent)
        assert not late.value.died and late.value.why == "did not answer within 1 s"
        # with a progress probe that stands still, the wait says it made no progress
        still = StartLimit(stall_s=1.0, max_s=30, progress=lambda: 0)
        with pytest.raises(NotReady, match="made no progress for 1 s"):
            sup.wait_ready(silent.pid, time.monotonic(), lambda: False, still, silent)
        answers = iter([False, False, True])
        waited = sup.wait_ready(silent.pid, time.monotonic(), lambda: next(answers), still)
        assert waited >= 0
    finally:
        sup.stop(timeout=5)


def test_a_failed_start_stops_the_whole_group_and_says_so(sup, tmp_path):
    grandchild = tmp_path / "grandchild.pid"
    proc = _launch(sup, tmp_path, PARENT_OF, str(grandchild))
    sup.write_state(Info(pid=proc.pid, model="m"))
    _wait_for(grandchild.exists)
    with pytest.raises(ServerError) as err, sup.stopped_on_failure(proc):
        raise ServerError("it did not answer", "raise the timeout")
    assert err.value.fix == (
        "raise the timeout; the unanswering server was stopped, nothing is left running"
    )
    assert proc.poll() is not None
    _wait_for(lambda: not alive(int(grandchild.read_text())))
    assert not sup.pid_file.exists() and not sup.state_file.exists()


def test_an_interrupted_start_leaves_nothing(sup, tmp_path):
    proc = _launch(sup, tmp_path, SLEEPER)
    with pytest.raises(KeyboardInterrupt), sup.stopped_on_failure(proc):
        raise KeyboardInterrupt
    assert proc.poll() is not None and sup.state(lambda: True)[0] is State.STOPPED


def test_keep_crashed_keeps_the_pid_of_a_server_that_died_while_starting(sup, tmp_path):
    neo = Supervisor(sup.pid_file, sup.logs, sup.lock_file, keep_crashed=True)
    proc = _launch(neo, tmp_path, "import sys; sys.exit(1)")
    proc.wait(timeout=10)
    with pytest.raises(ServerError) as err, neo.stopped_on_failure(proc):
        raise ServerError("the server died while starting", "read the log")
    assert err.value.fix == "read the log"  # it was not running: nothing was stopped
    assert neo.state(lambda: True) == (State.CRASHED, proc.pid)


def test_state_file_round_trip_and_a_corrupt_one(sup):
    assert sup.read_state(Info) is None
    sup.state_file.parent.mkdir(parents=True)
    sup.write_state(Info(pid=1, model="smollm2-135m"))
    assert sup.read_state(Info) == Info(pid=1, model="smollm2-135m")
    sup.state_file.write_text("{not json")
    assert sup.read_state(Info) is None


def test_log_tail_reads_the_first_log_that_has_lines(sup):
    assert sup.log_tail() == ""
    sup.logs[1].write_text("console 1\nconsole 2\n")
    assert sup.log_tail(1) == "console 2"
    sup.logs[0].write_text("server\n")
    assert sup.log_tail() == "server"


def test_child_env_has_no_secrets_but_what_it_is_given(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("HF_TOKEN", "hf-secret")
    monkeypatch.setenv("KG_LLM_PORT", "8861")
    env = child_env(KG_LLM_SERVE_KEY="its-own-key")
    assert "OPENAI_API_KEY" not in env and "HF_TOKEN" not in env
    assert env["KG_LLM_PORT"] == "8861" and env["KG_LLM_SERVE_KEY"] == "its-own-key"


def test_a_taken_port_is_refused_with_the_callers_error_class():
    class ModelError(ServerError):
        pass

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ModelError) as err:
            refuse_taken((port,), "choose another port", ModelError)
    assert err.value.message == f"port {port} on 127.0.0.1 is taken by another process"
    assert err.value.fix == "choose another port"
    refuse_taken((port,), "closed now: no error")


def test_starts_are_one_at_a_time(sup):
    inside: list[int] = []
    overlaps: list[int] = []

    def start(n: int) -> None:
        with sup.start_lock():
            inside.append(n)
            overlaps.append(len(inside))
            time.sleep(0.2)
            inside.remove(n)

    threads = [threading.Thread(target=start, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [1, 1, 1]
    assert oct(sup.lock_file.parent.stat().st_mode & 0o777) == "0o700"
