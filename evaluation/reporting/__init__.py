"""Reports: `kg eval report/compare/agreement` (report.py), the paper's tables of several runs
(paper_tables.py), the HTML report, and generic tools (any metric, any task): bootstrap CIs,
paired bootstrap, agreement, table exporters (CSV / JSON / Markdown) and PNG plots.

    from evaluation.reporting import bootstrap_ci, paired_bootstrap, agreement, Table, export_table
    ci = bootstrap_ci(values)                       # CI(mean, low, high, n) — 95 %, seeded
    cis = bootstrap_cis({"PAS": [...], "PRec": [...]})  # many metrics, shared resamples
    ci = bootstrap_ci(values, strata=hops)   # resample within strata; mean weighted by
                                             # stratum size (= "weighted by questions per hop")
    d = paired_bootstrap(a, b)               # PairedResult(mean_a, mean_b, diff, low, high, p)
    ag = agreement(labels_1, labels_2)              # percent, Cohen's kappa, confusion matrix
    t = Table(title="...", columns=[...], rows=[{...}, ...])
    export_table(t, out_dir, "name", formats=("csv", "json", "md"))  # -> list of paths
    t.to_markdown()
    from evaluation.reporting.plots import bar_by_group, scatter_points   # PNG via matplotlib Agg

Everything is numpy/pure Python except plots (matplotlib, imported lazily) and agreement
(scikit-learn, imported lazily).
"""

from evaluation.reporting.agreement import Agreement, agreement
from evaluation.reporting.bootstrap import (
    CI,
    PairedResult,
    bootstrap_ci,
    bootstrap_cis,
    paired_bootstrap,
)
from evaluation.reporting.tables import Table, export_table, fmt_ci

__all__ = [
    "CI",
    "Agreement",
    "PairedResult",
    "Table",
    "agreement",
    "bootstrap_ci",
    "bootstrap_cis",
    "export_table",
    "fmt_ci",
    "paired_bootstrap",
]
