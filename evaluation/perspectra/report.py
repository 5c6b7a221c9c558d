"""PERSPECTRA reports: per-task tables of runs (models and named baselines) with bootstrap CIs,
exported through evaluation.reporting (CSV / JSON / Markdown) plus an accuracy plot (PNG)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluation.perspectra.run_store import answered
from evaluation.perspectra.scoring import parse_for, score
from evaluation.reporting import CI, Table, bootstrap_ci, export_table
from kg.queries.task_items import load_items
from kg.store import Store

# (column, per-item key for a CI) or (column, summary key) per task.
CI_COLUMNS = {
    "t1": [("accuracy", "accuracy"), ("NIE", "nie"), ("MAE", "abs_error")],
    "t2": [("accuracy", "accuracy"), ("stance accuracy", "stance_accuracy")],
    "t3": [("accuracy", "accuracy")],
}
SHARE_COLUMNS = {
    "t1": [("over-split", "over_split"), ("under-count", "under_count"), ("invalid", "invalid")],
    "t2": [
        ("same-side confusion", "same_side_confusion"),
        ("opposite-side confusion", "opposite_side_confusion"),
        ("invalid", "invalid"),
    ],
    "t3": [
        ("invalid", "invalid"),
        ("concession share of items", "concession_share_items"),
        ("concession share of errors", "concession_share_errors"),
        ("accuracy on concession", "accuracy_concession"),
    ],
}
TITLES = {"t1": "T1 opinion counting", "t2": "T2 opinion matching", "t3": "T3 polarity"}


def run_label(run: dict[str, Any]) -> str:
    name = run["models"][0] if run.get("models") else run["uid"]
    if run.get("strategy") == "baseline" and not name.startswith("baseline"):
        return f"baseline:{name}"
    return name


def run_rows(store: Store, runs: list[dict[str, Any]], seed: int = 0) -> dict[str, list[dict]]:
    """Per task, one row per run: CIs (rescored from the stored replies) and shares."""
    out: dict[str, list[dict]] = {}
    for run in runs:
        task = run["setting"]
        items = load_items(store, run["build"])
        replies = answered(store, run["uid"])
        done = [i for i in items if i.uid in replies]
        if not done:
            continue
        s = score(done, [parse_for(i, replies[i.uid]) for i in done])
        row: dict[str, Any] = {
            "run": run_label(run),
            "task_set": run["build"],
            "n": len(done),
            "run_uid": run["uid"],
        }
        for col, key in CI_COLUMNS[task]:
            row[col] = bootstrap_ci(s.per_item[key], seed=seed)
        for col, key in SHARE_COLUMNS[task]:
            row[col] = s.summary[key]
        out.setdefault(task, []).append(row)
    return out


def tables(rows: dict[str, list[dict]]) -> dict[str, Table]:
    out = {}
    for task, task_rows in rows.items():
        cols = ["run", "n", *[c for c, _ in CI_COLUMNS[task]], *[c for c, _ in SHARE_COLUMNS[task]]]
        out[task] = Table(
            title=TITLES[task],
            columns=cols,
            rows=task_rows,
            notes=[
                "CIs: 95% percentile bootstrap over items; invalid replies count as wrong.",
                "Rows named baseline:... are offline baselines (no LLM, MiniLM embeddings).",
            ],
        )
    return out


def write_report(out_dir: Path, rows: dict[str, list[dict]], plot: bool = True) -> list[Path]:
    paths: list[Path] = []
    for task, table in tables(rows).items():
        paths += export_table(table, out_dir, f"perspectra_{task}")
    summary = {
        t: [{k: (v.model_dump() if isinstance(v, CI) else v) for k, v in r.items()} for r in rs]
        for t, rs in rows.items()
    }
    p = Path(out_dir) / "perspectra_summary.json"
    p.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    paths.append(p)
    if plot and rows:
        from evaluation.reporting.plots import bar_by_group

        series: dict[str, dict[str, CI]] = {}
        for task, rs in rows.items():
            for r in rs:
                series.setdefault(r["run"], {})[task.upper()] = r["accuracy"]
        paths.append(
            bar_by_group(
                series,
                Path(out_dir) / "perspectra_accuracy.png",
                title="PERSPECTRA accuracy by task",
                ylabel="accuracy (%)",
            )
        )
    return paths
