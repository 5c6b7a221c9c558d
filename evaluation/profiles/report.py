"""`kg eval profile RUN`: the run's report tables (per hop and domain, FRS, C3) and its
robustness profile (formulations, decoders) in one report, with plots."""

from __future__ import annotations

from pathlib import Path

from evaluation.profiles.profile import profile_plots, profile_tables
from evaluation.reporting.report import Report, build_report, run_label, write
from evaluation.runs.questions import EvalInputError
from evaluation.scoring.question_scores import run_scores
from kg.store import Store


def build_profile(
    store: Store,
    run_id: str,
    out_dir: Path | None = None,
    formats: list[str] | None = None,
    plots: bool = True,
    top_k_percent: float | None = None,
) -> Report:
    formats = formats or ["csv", "json", "md"]
    report = build_report(store, [run_id], out_dir, formats, plots, top_k_percent)
    run, scores = run_scores(store, run_id, all_samples=True)
    points = (run.identity or {}).get("decoders") or []
    settings = {f"d{i}": dict(p) for i, p in enumerate(points, 1)}
    tables = profile_tables(run_label(run), scores, settings)
    variants = {s.formulation or s.decoder_point or s.context for s in scores} - {None}
    if not tables and not variants and len({s.sample for s in scores}) == 1:
        raise EvalInputError(
            f"run {run_id!r} has no variants to profile: run it with --samples, --contexts, "
            "--formulations or --decoders"
        )
    for name, table in tables.items():
        write(report, f"{run_id}_{name}", table, out_dir, formats)
    if plots and out_dir is not None:
        report.files += profile_plots(tables, out_dir)
    return report
