"""`kg eval report / compare / agreement`: tables (CSV, JSON, Markdown) and PNG plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evaluation.judges.trust import JudgeTrust, judge_trusts, run_answer_words
from evaluation.judges.votes import SelfAgreement
from evaluation.profiles.consistency import consistency_tables
from evaluation.profiles.frs import DEFAULT_TOP_K, check_top_k, frs_compare, frs_table
from evaluation.reporting import Table, agreement, export_table, paired_bootstrap
from evaluation.reporting.endpoints import endpoints_table
from evaluation.reporting.paper_tables import Layout, PaperTable, build_table, result_of
from evaluation.runs.questions import EvalInputError
from evaluation.runs.record import EvalRunRecord
from evaluation.scoring.aggregate import DIGITS, METRICS, by_field, by_hop, by_theme
from evaluation.scoring.question_scores import QuestionScore, run_scores
from kg.store import Store
from kg.themes import question_themes


class Report(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    tables: dict[str, Table] = Field(default_factory=dict)
    lead: PaperTable | None = None  # the runs in the paper's Table 2 layout, shown first
    plots: list[Path] = Field(default_factory=list)
    files: list[Path] = Field(default_factory=list)
    # what the tables were computed from (the HTML report shows the same numbers per question)
    runs: dict[str, EvalRunRecord] = Field(default_factory=dict)
    scores: dict[str, list[QuestionScore]] = Field(default_factory=dict)
    trusts: dict[str, JudgeTrust] = Field(default_factory=dict)  # run uid -> its judge's trust
    # run uid -> where its answers differ from the gold answers that validated its judge
    warnings: dict[str, list[str]] = Field(default_factory=dict)

    def markdown(self) -> str:
        """The paper-layout table and the plots first, then the details."""
        head = [self.lead.to_markdown()] if self.lead is not None else []
        head += [f"![{p.stem}]({p.name})\n" for p in self.plots]
        return "\n".join(head + [t.to_markdown() for t in self.tables.values()])


def run_label(run: EvalRunRecord) -> str:
    roles = run.roles
    who = roles.get("responder") or f"answers of {run.source_run}"
    return (
        f"{run.uid} ({who}, {run.setting}/{run.strategy}, judge {roles.get('judge') or run.judge})"
    )


def _baseline_note(run: EvalRunRecord) -> list[str]:
    roles = run.roles
    names = [n for n in (roles.get("responder"), roles.get("judge")) if n]
    base = [n for n in names if str(n).startswith("baseline:")]
    return [f"Offline baseline(s), not a model under test: {', '.join(base)}."] if base else []


def _kappa_cells(trust: JudgeTrust) -> dict[str, str | float]:
    """The judge's kappa on natural answers (the headline) and on constructed ones, rounded
    to the 2 decimals a kappa carries, and the word for its trust."""

    def cell(f: Any) -> str | float:
        return "unvalidated" if f is None or f.kappa is None else round(float(f.kappa), 2)

    return {
        "judge kappa": cell(trust.natural),
        "judge kappa (constructed)": cell(trust.constructed or trust.other),
        "judge trust": trust.level,
    }


def write(
    report: Report, name: str, table: Table, out_dir: Path | None, formats: list[str]
) -> None:
    report.tables[name] = table
    if out_dir is not None:
        report.files += export_table(table, out_dir, name, formats)


def build_report(
    store: Store,
    run_ids: list[str],
    out_dir: Path | None = None,
    formats: list[str] | None = None,
    plots: bool = True,
    top_k_percent: float | None = None,
) -> Report:
    """`top_k_percent`: the K of the FRS table (a table per run with more than one sample per
    question, or per run when K is given; default K = DEFAULT_TOP_K)."""
    formats = formats or ["csv", "json", "md"]
    if top_k_percent is not None:
        check_top_k(top_k_percent)
    report = Report()
    loaded: list[tuple[EvalRunRecord, list[QuestionScore]]] = []
    sampled: dict[str, list[QuestionScore]] = {}
    perturbed: dict[str, list[QuestionScore]] = {}  # runs with C3 context perturbations
    for rid in run_ids:
        run, variants = run_scores(store, rid, all_samples=True)
        every = [s for s in variants if s.original]  # the samples of the original question
        scores = [s for s in every if s.sample == 0]  # the tables below: the first sample
        if not scores:
            raise EvalInputError(f"run {rid!r} has no judged answers yet")
        loaded.append((run, scores))
        report.runs[run.uid], report.scores[run.uid] = run, scores
        if top_k_percent is not None or len(every) > len(scores):
            sampled[run.uid] = every
        if any(s.context is not None for s in variants):
            perturbed[run.uid] = variants
    summary_rows, hop_tables = [], {}
    # how far each judge can be trusted: its stored validation against gold labels, if any
    trusts = judge_trusts(store, [str(r.judge) for r, _ in loaded if r.judge])
    for run, scores in loaded:
        rid, label = run.uid, run_label(run)
        trust = trusts.get(str(run.judge or "")) or JudgeTrust(judge=run.judge)
        report.trusts[rid] = trust
        report.warnings[rid] = trust.warnings(run_answer_words(store, rid), run.setting)
        extra = (
            [trust.line()]
            + [a.line() for a in [SelfAgreement.stored(run.judge_self_agreement)] if a]
            + report.warnings[rid]
            + _baseline_note(run)
            + [
                f"Tokens counted by: {', '.join(sorted({s.tokens_source or '?' for s in scores}))};"
                f" relevancy: {', '.join(sorted({s.relevancy_method or 'n/a' for s in scores}))}.",
                f"Judge verdicts rejected (unknown path): {sum(s.rejected for s in scores)}; "
                f"duplicates: {sum(s.duplicates for s in scores)}; "
                f"run status: {run.status}.",
            ]
        )
        t = by_hop(scores, f"{label} — by hop")
        t.notes += extra
        hop_tables[rid] = t
        write(report, f"{rid}_by_hop", t, out_dir, formats)
        write(
            report,
            f"{rid}_by_domain",
            by_field(scores, "domain", f"{label} — by domain"),
            out_dir,
            formats,
        )
        write(
            report,
            f"{rid}_by_theme",
            by_theme(
                scores,
                question_themes(store, [s.question for s in scores]),
                f"{label} — by theme category",
            ),
            out_dir,
            formats,
        )
        if run.endpoints:
            write(
                report, f"{rid}_endpoints", endpoints_table(run.endpoints, label), out_dir, formats
            )
        if rid in sampled:
            k = top_k_percent if top_k_percent is not None else DEFAULT_TOP_K
            write(
                report,
                f"{rid}_frs",
                frs_table(f"{label} — FRS aggregation of samples", sampled[rid], k),
                out_dir,
                formats,
            )
        if rid in perturbed:
            for name, table in consistency_tables(store, label, perturbed[rid]).items():
                write(report, f"{rid}_{name}", table, out_dir, formats)
        overall = next(r for r in t.rows if r["hop"] == "Overall")
        summary_rows.append(
            {
                "run": rid,
                "responder": run.roles.get("responder"),
                "setting": run.setting,
                "strategy": run.strategy,
                "judge": run.judge,
                **_kappa_cells(trust),
                "n": len(scores),
                **{k: overall[k] for k in METRICS},
            }
        )
    write(
        report,
        "overall",
        Table(
            title="Overall per run (weighted by questions per hop)",
            columns=[
                "run",
                "responder",
                "setting",
                "strategy",
                "judge",
                "judge kappa",
                "judge kappa (constructed)",
                "judge trust",
                "n",
                *METRICS,
            ],
            rows=summary_rows,
            notes=[
                "judge kappa: Cohen's kappa of the run's judge against gold labels on natural "
                "answers (written as models write), the headline; judge kappa (constructed): on "
                "answers written to state chosen paths (`kg judge validate`); 'unvalidated' = "
                "never measured; judge trust: validated (kappa >= 0.6 on natural answers), weak "
                "(below), constructed-only, unvalidated. Each run's notes name the gold files."
            ],
            digits=DIGITS,
        ),
        out_dir,
        formats,
    )
    report.lead = build_table([result_of(run, scores) for run, scores in loaded], Layout.paper)
    if out_dir is not None:
        report.files += report.lead.write(out_dir, "table_paper")
    if plots and out_dir is not None:
        report.plots = _plots(hop_tables, summary_rows, out_dir)
        report.files += report.plots
    return report


def _plots(hop_tables: dict[str, Table], summary_rows: list[dict], out_dir: Path) -> list[Path]:
    from evaluation.reporting.plots import bar_by_group, scatter_points

    series = {rid: {r["hop"]: r["PAS"] for r in t.rows} for rid, t in hop_tables.items()}
    points = {
        r["run"]: [(r["PRec"].mean, r["PPrec"].mean)]
        for r in summary_rows
        if r["PRec"].mean is not None and r["PPrec"].mean is not None
    }
    return [
        bar_by_group(
            series, out_dir / "pas_by_hop.png", title="PAS by hop", ylabel="PAS (%)", scale=1.0
        ),
        scatter_points(
            points,
            out_dir / "precision_recall.png",
            title="Perspective precision against recall",
            xlabel="PRec (%)",
            ylabel="PPrec (%)",
            scale=1.0,
        ),
    ]


def compare_runs(store: Store, run_a: str, run_b: str, seed: int = 0) -> Table:
    """Paired bootstrap of B - A over the questions both runs judged (first samples)."""
    _, sa = run_scores(store, run_a)
    _, sb = run_scores(store, run_b)
    return compare_scores(run_a, sa, run_b, sb, seed=seed)


def compare_runs_frs(
    store: Store, run_a: str, run_b: str, top_k_percent: float | None = None, seed: int = 0
) -> Table | None:
    """The paired comparison under each FRS aggregation (all samples, first, top-K%), when
    either run has more than one sample per question or K is given; else None."""
    # the samples of the original questions (not their C3 context perturbations)
    sa = [s for s in run_scores(store, run_a, all_samples=True)[1] if s.original]
    sb = [s for s in run_scores(store, run_b, all_samples=True)[1] if s.original]
    sampled = any(s.sample > 0 for s in sa + sb)
    if top_k_percent is None and not sampled:
        return None
    k = check_top_k(top_k_percent) if top_k_percent is not None else DEFAULT_TOP_K
    return frs_compare(run_a, sa, run_b, sb, k, seed=seed)


def compare_scores(
    run_a: str, sa: list[QuestionScore], run_b: str, sb: list[QuestionScore], seed: int = 0
) -> Table:
    """`compare_runs` on scores already read (the HTML report reuses the report's scores)."""
    a_by, b_by = {s.question: s for s in sa}, {s.question: s for s in sb}
    shared = sorted(set(a_by) & set(b_by))
    if not shared:
        raise EvalInputError(f"runs {run_a!r} and {run_b!r} share no judged question")
    rows = []
    for name, (get, scale) in METRICS.items():
        va = [None if (v := get(a_by[q])) is None else v * scale for q in shared]
        vb = [None if (v := get(b_by[q])) is None else v * scale for q in shared]
        r = paired_bootstrap(va, vb, seed=seed)
        rows.append({"metric": name, **r.row()})
    return Table(
        title=f"Paired comparison: A = {run_a}, B = {run_b} ({len(shared)} shared questions)",
        columns=["metric", "n", "A", "B", "B-A", "95% CI low", "95% CI high", "p"],
        rows=rows,
        notes=["Paired bootstrap (1000 resamples) over shared questions; p is two-sided."],
    )


def judge_agreement(store: Store, run_1: str, run_2: str) -> tuple[Table, Table]:
    """Path-level agreement of two judges on the same answers: summary and confusion matrix."""
    _, s1 = run_scores(store, run_1)
    _, s2 = run_scores(store, run_2)
    by1, by2 = {s.answer: s for s in s1}, {s.answer: s for s in s2}
    shared = sorted(set(by1) & set(by2))
    if not shared:
        raise EvalInputError(
            f"runs {run_1!r} and {run_2!r} judged no answer in common: judge the same answers "
            f"(`kg eval judge --run {run_1} --judge ...`)"
        )
    rows, r1, r2 = [], [], []
    for hop in sorted({by1[a].hop for a in shared}) + [None]:
        x, y = [], []
        for a in shared:
            if hop is not None and by1[a].hop != hop:
                continue
            for path in sorted(set(by1[a].present) & set(by2[a].present)):
                x.append(by1[a].present[path])
                y.append(by2[a].present[path])
        if hop is None:
            r1, r2 = x, y
        ag = agreement(x, y, labels=[True, False])
        rows.append(
            {
                "scope": "all" if hop is None else f"{hop}-hop",
                "decisions": ag.n,
                "agreement %": ag.percent,
                "Cohen's kappa": ag.kappa,
            }
        )
    summary = Table(
        title=f"Judge agreement (path level): {run_1} vs {run_2}",
        columns=["scope", "decisions", "agreement %", "Cohen's kappa"],
        rows=rows,
        notes=[f"{len(shared)} shared answers."],
    )
    ag = agreement(r1, r2, labels=[True, False])
    confusion = Table(
        title=f"Confusion matrix (rows: {run_1}, columns: {run_2})",
        columns=[f"{run_1} \\ {run_2}", "present", "absent"],
        rows=[
            {
                f"{run_1} \\ {run_2}": "present",
                "present": ag.confusion[0][0],
                "absent": ag.confusion[0][1],
            },
            {
                f"{run_1} \\ {run_2}": "absent",
                "present": ag.confusion[1][0],
                "absent": ag.confusion[1][1],
            },
        ],
    )
    return summary, confusion
