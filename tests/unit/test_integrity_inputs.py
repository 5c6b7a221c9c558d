"""Files and inputs (issue 15): names kept inside their folder; values the graph cannot store
refused with file:line:field; empty PERSPECTRA lists refused; every problem in a report file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.perspectivebench.plan import build_plan
from construction.perspectivebench.validation import validate_files
from construction.perspectra.errors import PerspectraInputError
from construction.perspectra.kialo_import import kialo_rows
from construction.perspectra.release_import import release_rows
from evaluation.reporting import Table, export_table
from kg import json_checks
from kg.error_report import screen_lines, write_error_report
from kg.safe_paths import UnsafePathError, inside, safe_file, safe_name

GOOD = Path(__file__).resolve().parents[1] / "data" / "malformed" / "good.jsonl"


def _good() -> dict:
    return json.loads(GOOD.read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize(
    "name", ["../../X", "a/b", "..", "", "x\x00y", "C:\\evil", "." * 5, "é" * 300]
)
def test_safe_name_never_leaves_the_folder(tmp_path: Path, name: str) -> None:
    cleaned = safe_name(name)
    assert "/" not in cleaned and "\\" not in cleaned and ".." not in cleaned
    assert 0 < len(cleaned) <= 120
    assert safe_file(tmp_path, name, ".csv").parent == tmp_path.resolve()


def test_safe_name_keeps_plain_names_and_separates_different_ones() -> None:
    assert safe_name("eval-1a2b_c.3") == "eval-1a2b_c.3"
    assert safe_name("a/b") != safe_name("a_b")  # a changed name carries a hash of the original


def test_inside_refuses_traversal(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError):
        inside(tmp_path, "../x.csv")


def test_report_tables_of_a_traversal_run_id_stay_in_out_dir(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out"
    table = Table(title="t", columns=["a"], rows=[{"a": 1}])
    files = export_table(table, out, "../../X_by_hop", ("csv", "json", "md"))
    assert len(files) == 3
    assert all(f.parent == out.resolve() and f.is_file() for f in files)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted(
        f.name for f in files
    )


def _problems(tmp_path: Path, text: str) -> list[tuple[int, str, str]]:
    f = tmp_path / "in.jsonl"
    f.write_text(text + "\n", encoding="utf-8")
    return [(p.line, p.field, p.message) for p in validate_files([f]).errors]


def test_id_above_int64_is_a_problem_with_its_field(tmp_path: Path) -> None:
    line = _good()
    line["id"] = 2**63
    [(ln, fld, msg)] = _problems(tmp_path, json.dumps(line))
    assert (ln, fld) == (1, "id") and "64 bits" in msg


def test_lone_surrogate_is_a_problem_with_its_field(tmp_path: Path) -> None:
    line = _good()
    text = json.dumps(line).replace('"focused_evidence": ["', '"focused_evidence": ["\\ud800', 1)
    [(ln, fld, msg)] = _problems(tmp_path, text)
    assert (ln, fld) == (1, "focused_evidence[0]") and "surrogate" in msg


def test_deep_nesting_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    [(ln, fld, msg)] = _problems(tmp_path, "[" * 200_000 + "]" * 200_000)
    assert ln == 1 and "nested too deeply" in msg


def test_scan_reports_every_problem_with_paths() -> None:
    found = json_checks.scan({"a": [1, -(2**64)], "b": {"c": "\udfff"}, "\ud800": 1})
    assert sorted(p.field for p in found) == ["-", "a[1]", "b.c"]


def test_perspectra_release_holding_an_empty_list_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "Perspectra.json"
    f.write_text("[]", encoding="utf-8")
    with pytest.raises(PerspectraInputError, match="no records"):
        release_rows(f)


def test_perspectra_huge_int_and_deep_nesting_name_line_and_field(tmp_path: Path) -> None:
    f = tmp_path / "topics.json"
    f.write_text(
        '[\n{"topic": "t", "pros": ["a"], "cons": ["b"]},\n'
        '{"topic": "u", "pros": ["a"], "cons": [' + str(2**70) + "]}\n]",
        encoding="utf-8",
    )
    with pytest.raises(PerspectraInputError) as e:
        kialo_rows(f)
    [p] = e.value.problems
    assert (p.line, p.field) == (3, "cons[0]") and "64 bits" in p.message
    f.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    with pytest.raises(PerspectraInputError, match="nested too deeply"):
        kialo_rows(f)


def test_error_report_holds_every_problem_and_the_screen_ten(tmp_path: Path) -> None:
    problems = [f"in.jsonl:{i}:id: bad" for i in range(1, 26)]
    path = write_error_report("/some/where/in.jsonl", problems, folder=tmp_path)
    assert path.read_text(encoding="utf-8").splitlines() == problems
    shown = screen_lines(problems, path)
    assert shown[:10] == problems[:10] and len(shown) == 11
    assert "15 more" in shown[-1] and str(path) in shown[-1]


def test_plan_counts_focused_evidence_outside_the_pool(tmp_path: Path) -> None:
    line = _good()
    line["focused_evidence"] = [*line["focused_evidence"], "A sentence no concept lists."]
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = validate_files([f])
    assert not result.errors
    in_pool = {s for e in line["full_content_pool"].values() for s in e["Key Evidence"]}
    expected = sum(1 for s in line["focused_evidence"] if s not in in_pool)
    plan = build_plan(result.questions)
    assert plan.evidence_outside_pool == expected >= 1
    assert plan.questions_with_outside_evidence == 1


@pytest.mark.parametrize("n", [0, 1])
def test_pairs_of_a_domain_with_fewer_than_two_concepts_are_none(n: int) -> None:
    from construction.pipeline.config import BuildConfig
    from construction.pipeline.pairs import PairScores, kept_pairs

    scores = PairScores(
        keys=[f"topic_{i}" for i in range(n)],
        shared=[[3] * n] * n,
        near=[[0] * n] * n,
        bridge=[[False] * n] * n,
    )
    assert kept_pairs(scores, BuildConfig(domain="d")) == []


def test_a_lease_owner_is_dead_here_only_when_its_process_is_gone() -> None:
    import socket
    import subprocess
    import sys

    from kg.leases import _dead_here, owner_id

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = socket.gethostname()
    assert _dead_here(f"{host}:{gone.pid}:1")
    assert not _dead_here(owner_id())  # this process is alive
    assert not _dead_here(f"another-host:{gone.pid}:1")  # other hosts: judged by expiry
    assert not _dead_here(None) and not _dead_here("garbage")


def test_refused_file_on_the_command_line_prints_ten_and_reports_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kg import perspectivebench --check` (no database): a file with 12 lines a graph cannot
    store (ids above 2^63, a lone surrogate, 200,000-deep nesting) exits 1 without a traceback,
    shows the first 10 problems as file:line:field and writes all of them to a report file
    whose path it prints."""
    from typer.testing import CliRunner

    from kg.cli.main import app

    lines = []
    for i in range(10):
        line = _good()
        line["id"] = 2**63 + i
        lines.append(json.dumps(line))
    surrogate = '"focused_evidence": ["\\ud800'
    lines.append(json.dumps(_good()).replace('"focused_evidence": ["', surrogate, 1))
    lines.append("[" * 200_000 + "]" * 200_000)
    src = tmp_path / "in" / "bad.jsonl"
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(
        app, ["import", "perspectivebench", str(src), "--check"], env={"COLUMNS": "400"}
    )
    assert res.exit_code == 1, res.output
    assert isinstance(res.exception, SystemExit)  # a clean exit, not an error
    assert "Traceback" not in res.output
    report = tmp_path / "bad.jsonl.errors.txt"
    written = report.read_text(encoding="utf-8").splitlines()
    assert len(written) == 12
    assert ":1:id:" in written[0] and "64 bits" in written[0]
    assert any(":11:focused_evidence[0]:" in p and "surrogate" in p for p in written)
    assert any(":12:" in p and "nested too deeply" in p for p in written)
    shown = [ln for ln in res.output.splitlines() if "bad.jsonl:" in ln]
    assert shown == written[:10]
    assert f"and 2 more; all 12 problem(s) written to {report}" in " ".join(res.output.split())


def test_a_lease_notices_a_dead_server_while_its_heartbeat_query_hangs() -> None:
    """A heartbeat query in flight when Neo4j dies sits in the driver's retry loop for up to
    30 s; the port probe runs on its own thread, so the run stops calling models within ~1 s."""
    import socket
    import threading
    import time

    from kg.leases import Lease
    from kg.settings import get_settings
    from kg.store import Store

    with socket.socket() as s:  # a port nobody listens on: the server is "dead"
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    import neo4j

    release = threading.Event()
    settings = get_settings(bolt_port=port)
    store = Store(settings, driver=neo4j.GraphDatabase.driver(settings.bolt_uri, auth=("n", "p")))
    hang = lambda *a, **k: release.wait(60) and []  # noqa: E731 - the heartbeat's query hangs
    store.query = store.query_unchained = hang  # type: ignore[method-assign]
    lease = Lease(store, "k", "run", "eval", "me", ttl_s=30, heartbeat_s=0.2)
    started = time.monotonic()
    lease.start_watching()
    while lease.healthy and time.monotonic() - started < 10:
        time.sleep(0.05)
    release.set()
    lease.release()
    store.close()
    assert not lease.healthy and "refuses connections" in (lease.problem or "")
    assert time.monotonic() - started < 5
