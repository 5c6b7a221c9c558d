"""The paper-layout tables (issue 27): rows, column groups, best/second marks, writers."""

from __future__ import annotations

import csv

import pytest

from evaluation.reporting import CI
from evaluation.reporting.paper_tables import PAPER_METRICS, Layout, RunResult, build_table


def _ci(v: float) -> CI:
    return CI(mean=v, low=v - 1, high=v + 1, n=10)


def _run(run: str, model: str, setting: str, strategy: str, base: float) -> RunResult:
    hops = {
        h: {m: _ci(base + k + i) for i, m in enumerate(PAPER_METRICS)}
        for k, h in enumerate(["1-hop", "2-hop", "3-hop", "Overall"])
    }
    return RunResult(run=run, model=model, setting=setting, strategy=strategy, by_hop=hops)


RUNS = [
    _run("r1", "gpt", "oracle", "plain", 40),
    _run("r2", "gpt", "base", "plain", 30),
    _run("r3", "claude", "oracle", "plain", 35),
]


def test_paper_layout_rows_groups_and_marks_per_column():
    t = build_table(RUNS, Layout.paper)
    assert t.rows == [("gpt", "Base"), ("gpt", "Oracle"), ("claude", "Oracle")]
    assert t.groups == ["1-hop", "2-hop", "3-hop", "Overall"]
    assert t.mark(1, "Overall", "PAS") == "best"  # gpt oracle: 40
    assert t.mark(2, "Overall", "PAS") == "second"  # claude: 35
    assert t.mark(0, "Overall", "PAS") is None
    assert t.mark(1, "Overall", "#Tok") is None  # tokens are reported, never ranked
    assert t.cell(1, "2-hop", "PPrec").mean == 41


def test_noisy_layout_marks_best_per_model():
    t = build_table(RUNS, Layout.noisy)
    assert t.groups == [""]
    assert t.mark(2, "", "PAS") is None  # claude's only row: nothing to rank against
    assert t.mark(1, "", "PAS") == "best" and t.mark(0, "", "PAS") == "second"


def test_strategies_and_rag_layouts():
    runs = [*RUNS, _run("r4", "gpt", "oracle", "negative", 45)]
    s = build_table(runs, Layout.strategies)
    assert ("gpt", "+ Negative Constraints") in s.rows
    r = build_table(runs, Layout.rag)
    assert r.groups == ["gpt", "claude"] and r.metrics == ["PPrec", "PRec"]
    assert [label for _, label in r.rows] == ["Base", "Oracle", "Oracle + Negative Constraints"]


def test_writers(tmp_path):
    t = build_table(RUNS, Layout.paper)
    md, csv_path, tex = t.write(tmp_path, "t", with_ci=True)
    text = md.read_text()
    assert "**" in text and "<u>" in text and "[" in text
    latex = tex.read_text()
    assert "\\toprule" in latex and "\\cmidrule(lr){3-7}" in latex and "\\#Tok" in latex
    rows = list(csv.DictReader(csv_path.open()))
    assert float(rows[1]["Overall PAS"]) == pytest.approx(45.0)
    assert rows[1]["Overall PAS mark"] == "best"
    assert float(rows[1]["Overall PAS_low"]) == pytest.approx(44.0)
    for _, head, body in t.terminal_blocks():
        assert len(head) == 2 + len(PAPER_METRICS) and len(body) == 3
