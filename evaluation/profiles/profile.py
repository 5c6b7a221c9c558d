"""`kg eval profile RUN`: the PROOF-style robustness profile of one run (issue 13).

From the run's judged first-sample answers, grouped by what the question was asked as:
- per formulation: PAS, precision, recall [bootstrap CIs], the paired change of PAS against the
  original on the same questions, the share of aligned original answers (A = T) that the
  formulation breaks, and for the formulations that name a distractor path's relation
  (adversarial, hint) how often that path is then judged present, against how often it is in
  the original answer (hint following);
- PAS per domain and per hop under each formulation, with the spread (max - min);
- per decoder grid point, PAS on the seeded subset beside the original answers of that subset.
The report's tables (per hop, domain, FRS for sampled runs, C3 for runs with contexts) come
along; `--out` also writes plots.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from evaluation.profiles.formulations import ORIGINAL
from evaluation.reporting import CI, Table, bootstrap_cis, paired_bootstrap
from evaluation.scoring.question_scores import QuestionScore

Group = dict[str, QuestionScore]  # question uid -> its first-sample answer in one variant


def _aligned(s: QuestionScore) -> bool:
    return s.precision == 1.0 and s.recall == 1.0  # A = T: every target, no distractor


def groups(scores: Sequence[QuestionScore]) -> tuple[dict[str, Group], dict[str, Group]]:
    """(formulation name -> answers, decoder point -> answers); the original under ORIGINAL."""
    forms: dict[str, Group] = defaultdict(dict)
    grid: dict[str, Group] = defaultdict(dict)
    for s in scores:
        if s.sample != 0 or s.context is not None:
            continue
        if s.decoder_point is not None:
            grid[s.decoder_point][s.question] = s
        else:
            forms[s.formulation or ORIGINAL][s.question] = s
    order = [ORIGINAL, *sorted(k for k in forms if k != ORIGINAL)]
    return {k: forms[k] for k in order if k in forms}, dict(sorted(grid.items()))


def _pct(values: list[float]) -> list[float | None]:
    return [v * 100.0 for v in values]


def formulation_table(title: str, forms: dict[str, Group]) -> Table:
    orig = forms.get(ORIGINAL, {})
    aligned = {q for q, s in orig.items() if _aligned(s)}
    rows = []
    for name, group in forms.items():
        qs = sorted(group)
        cis = bootstrap_cis(
            {
                "PAS": _pct([group[q].pas for q in qs]),
                "PPrec": _pct([group[q].precision for q in qs]),
                "PRec": _pct([group[q].recall for q in qs]),
            },
            strata=[group[q].hop for q in qs],
        )
        row: dict[str, object] = {"formulation": name, "n": len(qs), **cis}
        shared = sorted(set(qs) & set(orig))
        if name != ORIGINAL and shared:
            d = paired_bootstrap(
                _pct([orig[q].pas for q in shared]), _pct([group[q].pas for q in shared])
            )
            row["dPAS vs original"] = d.diff
            kept = [q for q in shared if q in aligned]
            row["broken"] = (
                f"{sum(not _aligned(group[q]) for q in kept)} of {len(kept)}" if kept else "-"
            )
        hinted = [q for q in qs if group[q].hint_path]
        if hinted:
            followed = sum(group[q].present.get(group[q].hint_path or "", False) for q in hinted)
            before = [q for q in hinted if q in orig]
            base = sum(orig[q].present.get(group[q].hint_path or "", False) for q in before)
            row["named distractor present"] = f"{followed} of {len(hinted)}"
            row["same path in original"] = f"{base} of {len(before)}"
        rows.append(row)
    return Table(
        title=title,
        columns=[
            "formulation",
            "n",
            "PAS",
            "PPrec",
            "PRec",
            "dPAS vs original",
            "broken",
            "named distractor present",
            "same path in original",
        ],
        rows=rows,
        notes=[
            "First-sample answers; cells mean [bootstrap 95% CI] in %, weighted by questions "
            "per hop. dPAS: paired mean change against the original on the same questions.",
            "broken: of the questions whose original answer is aligned (A = T), how many are "
            "not aligned under the formulation.",
            "named distractor present: the distractor path whose relation the formulation "
            "names is judged present in its answer (hint following for 'hint'); beside it, "
            "how often the same path is present in the original answer.",
        ],
    )


def spread_table(title: str, forms: dict[str, Group], field: str) -> Table:
    """Mean PAS per value of `field` (domain or hop) under each formulation, and the spread."""
    values = sorted({str(getattr(s, field)) for g in forms.values() for s in g.values()})
    rows = []
    for v in values:
        row: dict[str, object] = {field: v}
        means = []
        for name, group in forms.items():
            pas = [s.pas for s in group.values() if str(getattr(s, field)) == v]
            mean = 100.0 * sum(pas) / len(pas) if pas else None
            row[name] = None if mean is None else round(mean, 1)
            if mean is not None:
                means.append(mean)
        row["spread"] = round(max(means) - min(means), 1) if len(means) > 1 else None
        rows.append(row)
    return Table(
        title=title,
        columns=[field, *forms, "spread"],
        rows=rows,
        notes=["Mean PAS (%) of first-sample answers; spread = max - min over formulations."],
    )


def decoder_table(
    title: str, orig: Group, grid: dict[str, Group], settings: dict[str, dict]
) -> Table:
    subset = sorted({q for g in grid.values() for q in g})
    rows = []
    means = []
    for name, group in [
        ("run's decoder", {q: orig[q] for q in subset if q in orig}),
        *grid.items(),
    ]:
        qs = sorted(group)
        ci = bootstrap_cis({"PAS": _pct([group[q].pas for q in qs])})["PAS"]
        if ci.mean is not None:
            means.append(ci.mean)
        rows.append(
            {
                "decoder": name,
                "settings": ", ".join(f"{k}={v}" for k, v in settings.get(name, {}).items()),
                "n": len(qs),
                "PAS": ci,
            }
        )
    spread = round(max(means) - min(means), 1) if len(means) > 1 else None
    return Table(
        title=title,
        columns=["decoder", "settings", "n", "PAS"],
        rows=rows,
        notes=[
            f"The seeded decoder subset ({len(subset)} question(s)); PAS spread over the grid "
            f"and the run's decoder: {spread if spread is not None else 'n/a'} points."
        ],
    )


def profile_tables(
    label: str, scores: Sequence[QuestionScore], grid_settings: dict[str, dict]
) -> dict[str, Table]:
    forms, grid = groups(scores)
    out = {}
    if len(forms) > 1:
        out["formulations"] = formulation_table(f"{label} — by formulation", forms)
        out["formulation_domain"] = spread_table(f"{label} — PAS by domain", forms, "domain")
        out["formulation_hop"] = spread_table(f"{label} — PAS by hop", forms, "hop")
    if grid:
        out["decoders"] = decoder_table(
            f"{label} — by decoder", forms.get(ORIGINAL, {}), grid, grid_settings
        )
    return out


def profile_plots(tables: dict[str, Table], out_dir: Path) -> list[Path]:
    from evaluation.reporting.plots import bar_by_group

    def pas_plot(series: Mapping[str, Mapping[str, CI]], name: str, title: str) -> Path:
        return bar_by_group(series, out_dir / name, title=title, ylabel="PAS (%)", scale=1.0)

    files = []
    if "formulations" in tables:
        series = {"PAS": {r["formulation"]: r["PAS"] for r in tables["formulations"].rows}}
        files.append(pas_plot(series, "pas_by_formulation.png", "PAS by formulation"))
        dom = tables["formulation_domain"]
        forms = [c for c in dom.columns if c not in ("domain", "spread")]
        by_dom = {
            f: {
                r["domain"]: CI(mean=r[f], low=r[f], high=r[f], n=1)
                for r in dom.rows
                if r[f] is not None
            }
            for f in forms
        }
        files.append(
            pas_plot(by_dom, "pas_by_domain_formulation.png", "PAS by domain and formulation")
        )
    if "decoders" in tables:
        series = {"PAS": {r["decoder"]: r["PAS"] for r in tables["decoders"].rows}}
        files.append(pas_plot(series, "pas_by_decoder.png", "PAS by decoder (subset)"))
    return files
