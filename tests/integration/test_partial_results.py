"""Partial measurements and builds say so, counts report what was written (issue 30, item 7):
`kg judge validate` with failing judge calls exits 2 and keeps the stored measurement; `kg
build --json --allow-partial` warns on stderr only; two concurrent imports each report the
nodes their own transaction created."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from llm_server import PATHS_MARKER, scripted_path_verdicts
from typer.testing import CliRunner

from construction.perspectivebench.importer import import_perspectivebench
from evaluation.judges.validation import latest_validations
from kg.cli.main import app

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "demo" / "judge" / "gold.jsonl"


def _kg(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})


def test_judge_validate_with_failing_calls_exits_2_and_keeps_the_stored_measurement(
    store, llm_server, monkeypatch
):
    monkeypatch.setenv("EVAL_TEST_KEY", "sk-test-judge-validate")
    res = _kg(
        "import", "perspectivebench", str(ROOT / "demo/bench/sample.jsonl"),
        "--palette", str(ROOT / "demo/bench/palette.json"),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    args = ["judge", "validate", "--gold", str(GOLD), "--judge", "judge-model"]
    args += ["--base-url", llm_server.base_url, "--api-key-env", "EVAL_TEST_KEY", "--no-cache"]
    llm_server.add_rule(match=PATHS_MARKER, reply=scripted_path_verdicts)
    full = _kg(*args, "--format", "json")
    assert full.exit_code == 0, full.output
    stored = latest_validations(store, ["llm:judge-model"])["llm:judge-model"]

    llm_server.reset()
    n = len([x for x in GOLD.read_text().splitlines() if x.strip()])
    llm_server.add_rule(match=PATHS_MARKER, status=401, times=n // 2)  # half refused
    llm_server.add_rule(match=PATHS_MARKER, reply=scripted_path_verdicts)
    partial = _kg(*args, "--format", "json")
    assert partial.exit_code == 2, partial.output
    assert json.loads(partial.stdout)["errors"]  # stdout: the JSON and nothing after it
    assert "partial measurement" in partial.stderr and "nothing stored" in partial.stderr
    assert latest_validations(store, ["llm:judge-model"])["llm:judge-model"] == stored


def test_build_json_allow_partial_warns_on_stderr_and_exits_2(store, llm_server, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "integrity_build", Path(__file__).with_name("test_integrity_build.py")
    )
    assert spec is not None and spec.loader is not None
    tb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tb)  # its scripted builder model and small chunk file

    chunks = tb._small_chunks(tmp_path)
    llm_server.add_rule(match=tb.facts_request_with(tb.FAILING), status=500)
    tb._script(llm_server)
    res = CliRunner().invoke(
        app,
        [
            "build",
            "zq_partial",
            "--chunks",
            str(chunks),
            "--palette",
            str(tb.DEMO / "palette.json"),
            "--model",
            "test-model",
            "--base-url",
            llm_server.base_url,
            "--no-cache",
            "--allow-partial",
            "--json",
        ],  # fmt: skip
        env={"COLUMNS": "400", "OPENAI_API_KEY": "test-key"},
    )
    assert res.exit_code == 2, res.output
    body = json.loads(res.stdout)  # the JSON is all stdout holds
    assert body["failed_items"] == 1 and body["allow_partial"] is True
    assert "warning:" in res.stderr and "partial input" in res.stderr


def test_concurrent_imports_each_report_what_their_transaction_created(
    store, tmp_path, shared_data
):
    sample = (shared_data / "perspectivebench/sample.jsonl").read_text("utf-8").splitlines()
    by_domain: dict[str, list[str]] = {}
    for line in sample:
        if line.strip():
            by_domain.setdefault(json.loads(line)["domain"], []).append(line)
    files = []
    for i, (_domain, lines) in enumerate(sorted(by_domain.items())[:2]):
        files.append(tmp_path / f"part{i}.jsonl")
        files[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(files) == 2, "the sample holds two domains"
    before = store.run_text("MATCH (q:Question) RETURN count(q) AS n")[0]["n"]
    reports: dict[int, object] = {}

    def run(i: int) -> None:
        reports[i] = import_perspectivebench(store, [files[i]])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    total = store.run_text("MATCH (q:Question) RETURN count(q) AS n")[0]["n"] - before
    claimed = [reports[i].nodes_created.get("Question", 0) for i in range(2)]
    assert claimed == [len(by_domain[d]) for d in sorted(by_domain)[:2]]
    assert sum(claimed) == total  # no import claims the other's nodes
