"""Generic report tools: bootstrap CIs, paired bootstrap, agreement, exporters, plots."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from evaluation.reporting import (
    CI,
    Table,
    agreement,
    bootstrap_ci,
    export_table,
    fmt_ci,
    paired_bootstrap,
)


def test_bootstrap_ci_contains_mean_and_is_seeded():
    values = [0.0, 1.0, 0.5, 0.25, 0.75, 1.0, 0.0, 0.5]
    ci = bootstrap_ci(values)
    assert ci.mean == pytest.approx(np.mean(values))
    assert ci.low < ci.mean < ci.high and ci.n == 8
    assert bootstrap_ci(values) == ci  # same seed, same interval


def test_bootstrap_ci_constant_and_missing_values():
    ci = bootstrap_ci([0.5, None, 0.5, float("nan")])
    assert (ci.mean, ci.low, ci.high, ci.n) == (0.5, 0.5, 0.5, 2)
    assert bootstrap_ci([None]).mean is None and bootstrap_ci([]).n == 0


def test_stratified_mean_is_weighted_by_stratum_size():
    # hop 1: three questions mean 1.0; hop 2: one question 0.0 -> weighted 0.75
    ci = bootstrap_ci([1.0, 1.0, 1.0, 0.0], strata=[1, 1, 1, 2])
    assert ci.mean == pytest.approx(0.75)
    assert ci.low == pytest.approx(0.75) and ci.high == pytest.approx(0.75)  # no variance


def test_paired_bootstrap_detects_a_shift():
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 1, 200)
    b = a + 0.1
    r = paired_bootstrap(list(a), list(b))
    assert r.diff == pytest.approx(0.1) and r.low == pytest.approx(0.1)
    assert r.p_value == 0.0 and r.n == 200
    same = paired_bootstrap([0.2, 0.4], [0.2, 0.4])
    assert same.diff == 0 and same.p_value == 1.0
    with pytest.raises(ValueError, match="length"):
        paired_bootstrap([1.0], [1.0, 2.0])


def test_paired_bootstrap_skips_items_missing_on_either_side():
    r = paired_bootstrap([1.0, None, 0.0], [1.0, 0.5, None])
    assert r.n == 1 and r.diff == 0.0


def test_agreement_percent_kappa_confusion():
    r1 = [True, True, False, False, True, False, True, True, False, False]
    r2 = [True, False, False, False, True, True, True, True, False, False]
    ag = agreement(r1, r2, labels=[True, False])
    assert ag.percent == pytest.approx(80.0)
    # by hand: po = .8, pe = .5*.5 + .5*.5 = .5 -> kappa = .6
    assert ag.kappa == pytest.approx(0.6)
    assert ag.confusion == [[4, 1], [1, 4]]
    assert agreement([True, True], [True, True]).kappa == 1.0
    with pytest.raises(ValueError, match="different numbers"):
        agreement([True], [])


def test_table_exports(tmp_path):
    ci = CI(mean=0.5, low=0.4, high=0.6, n=10)
    t = Table(
        title="Demo",
        columns=["setting", "PAS", "n"],
        rows=[{"setting": "oracle", "PAS": ci, "n": 10}],
        notes=["a note"],
    )
    paths = export_table(t, tmp_path, "demo")
    assert [p.suffix for p in paths] == [".csv", ".json", ".md"]
    rows = list(csv.DictReader((tmp_path / "demo.csv").open()))
    assert rows[0]["PAS"] == "0.5" and rows[0]["PAS_low"] == "0.4" and rows[0]["PAS_n"] == "10"
    data = json.loads((tmp_path / "demo.json").read_text())
    assert data["rows"][0]["PAS"]["high"] == 0.6
    md = (tmp_path / "demo.md").read_text()
    assert "| oracle | 0.50 [0.40, 0.60] | 10 |" in md and "- a note" in md
    assert fmt_ci(ci, scale=100) == "50.00 [40.00, 60.00]"
    with pytest.raises(ValueError, match="unknown table format"):
        export_table(t, tmp_path, "x", formats=["xlsx"])


def test_plots_write_pngs(tmp_path):
    from evaluation.reporting.plots import bar_by_group, scatter_points

    ci = CI(mean=0.5, low=0.4, high=0.6, n=3)
    p1 = bar_by_group(
        {"run-a": {"1": ci, "2": ci}, "run-b": {"1": ci}},
        tmp_path / "b.png",
        title="PAS by hop",
        ylabel="PAS",
    )
    p2 = scatter_points(
        {"run-a": [(0.4, 0.8)]}, tmp_path / "s.png", title="P vs R", xlabel="PRec", ylabel="PPrec"
    )
    for p in (p1, p2):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bootstrap_cis_shares_resamples_and_handles_missing_values():
    from evaluation.reporting import bootstrap_cis

    cols = {"a": [1.0, 0.0, 1.0, None], "b": [0.5, 0.5, None, None], "c": [None] * 4}
    out = bootstrap_cis(cols, strata=[1, 1, 2, 2])
    assert out["a"].n == 3 and out["a"].mean == pytest.approx((0.5 * 2 + 1.0) / 3)
    assert out["b"].mean == 0.5 and out["b"].low == 0.5 and out["b"].n == 2
    assert out["c"].mean is None and out["c"].n == 0
    with pytest.raises(ValueError, match="strata"):
        bootstrap_cis(cols, strata=[1])


def test_bar_plot_tolerates_intervals_not_containing_the_mean(tmp_path):
    from evaluation.reporting.plots import bar_by_group

    odd = CI(mean=100.0, low=100.00000000000001, high=100.00000000000001, n=6)
    skew = CI(mean=0.5, low=0.55, high=0.9, n=6)
    p = bar_by_group(
        {"r": {"1": odd, "2": skew}}, tmp_path / "x.png", title="t", ylabel="y", scale=1.0
    )
    assert p.exists()


def test_constant_values_give_an_exact_interval():
    ci = bootstrap_ci([100.0] * 7, strata=[1, 1, 2, 2, 3, 3, 3])
    assert (ci.mean, ci.low, ci.high) == (100.0, 100.0, 100.0)
