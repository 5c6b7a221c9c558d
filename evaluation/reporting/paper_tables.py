"""Several runs in one table laid out as the paper lays out its results (seeds/000):

- `paper` (Table 2): rows model × setting; column groups 1-hop, 2-hop, 3-hop, Overall (weighted
  by questions per hop), each PPrec, PRec, PAS, Faithfulness, #Tok; best and second best per
  column over all rows.
- `strategies` (Table 3): rows model × prompting strategy (Oracle, + One-Shot, + Negative
  Constraints); overall columns; best and second best per model.
- `noisy` (Table 5): rows model × setting (Base, Noisy, Oracle); best and second best per model.
- `rag` (Table 7): rows setting (Base, RAG BM25, RAG dense, Noisy, Oracle); a column group per
  model with PPrec and PRec; best and second best per model.

Every number is the per-run report's (`evaluation.scoring.aggregate.by_hop`: the same scores, the
same bootstrap, the same overall row), so a table and the runs' reports never disagree. Written as
Markdown (**best**, <u>second</u>), CSV (numbers, CIs as `_low`/`_high` columns on demand) and
LaTeX with booktabs (\\textbf, \\underline). #Tok is reported, never ranked (fewer tokens is
neither better nor worse an answer).
"""

from __future__ import annotations

import csv
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evaluation.reporting import CI
from evaluation.runs.questions import EvalInputError
from evaluation.runs.record import EvalRunRecord
from evaluation.scoring.aggregate import by_hop
from evaluation.scoring.question_scores import QuestionScore, run_scores
from kg.safe_paths import safe_file
from kg.store import Store


class Layout(StrEnum):
    paper = "paper"
    strategies = "strategies"
    noisy = "noisy"
    rag = "rag"


SETTING_LABELS = {
    "base": "Base",
    "rag-bm25": "RAG BM25",
    "rag-dense": "RAG dense",
    "noisy": "Noisy",
    "oracle": "Oracle",
}
STRATEGY_LABELS = {"plain": "", "one-shot": "+ One-Shot", "negative": "+ Negative Constraints"}
PAPER_METRICS = ["PPrec", "PRec", "PAS", "Faithfulness", "#Tok"]
UNRANKED = {"#Tok"}
_TITLES = {
    Layout.paper: "Results by model and hop (paper Table 2 layout). Overall scores are weighted "
    "by questions per hop; #Tok denotes mean generated tokens. Bold and underline denote the "
    "best and second-best scores per column.",
    Layout.strategies: "Prompting results (paper Table 3 layout): mean over questions. Best "
    "scores per model are bold; second-best are underlined.",
    Layout.noisy: "Noisy results (paper Table 5 layout): mean over questions. Best scores per "
    "model are bold; second-best are underlined.",
    Layout.rag: "Retrieval precision/recall (paper Table 7 layout): PPrec / PRec per model. Best "
    "scores per model are bold; second-best are underlined.",
}


class RunResult(BaseModel):
    """One run's figures, as its report has them: per hop label ("1-hop", ..., "Overall")."""

    run: str
    model: str
    setting: str
    strategy: str
    by_hop: dict[str, dict[str, CI]]


class PaperTable(BaseModel):
    layout: Layout
    title: str
    rows: list[tuple[str, str]]  # (model, row label)
    groups: list[str]  # column groups ("1-hop", ..., "Overall"; a model in `rag`; "" for none)
    metrics: list[str]
    cells: dict[str, CI]  # f"{row}|{group}|{metric}" -> value
    marks: dict[str, str]  # same key -> "best" | "second"
    notes: list[str] = []

    # ------------------------------------------------------------------ access
    def cell(self, row: int, group: str, metric: str) -> CI | None:
        return self.cells.get(f"{row}|{group}|{metric}")

    def mark(self, row: int, group: str, metric: str) -> str | None:
        return self.marks.get(f"{row}|{group}|{metric}")

    def columns(self) -> list[tuple[str, str]]:
        return [(g, m) for g in self.groups for m in self.metrics]

    @staticmethod
    def _num(ci: CI | None, with_ci: bool, digits: int = 2) -> str:
        if ci is None or ci.mean is None:
            return "–"
        text = f"{ci.mean:.{digits}f}"
        if with_ci and ci.low is not None and ci.high is not None:
            text += f" [{ci.low:.{digits}f}, {ci.high:.{digits}f}]"
        return text

    # ------------------------------------------------------------------ writers
    def to_markdown(self, with_ci: bool = False) -> str:
        head = ["Model", "Setting"] + [f"{g} {m}".strip() for g, m in self.columns()]
        lines = [f"### {self.title}", "", "| " + " | ".join(head) + " |"]
        lines.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
        for i, (model, label) in enumerate(self.rows):
            cells = []
            for g, m in self.columns():
                text = self._num(self.cell(i, g, m), with_ci)
                mark = self.mark(i, g, m)
                cells.append(
                    f"**{text}**" if mark == "best" else f"<u>{text}</u>" if mark else text
                )
            lines.append("| " + " | ".join([model, label, *cells]) + " |")
        lines += ["", *[f"- {n}" for n in self.notes]] if self.notes else []
        return "\n".join(lines) + "\n"

    def to_latex(self, with_ci: bool = False) -> str:
        """A booktabs table: column groups under \\cmidrule, the model named once per block."""
        ncol = len(self.columns())
        out = [
            "\\begin{table}[t]",
            "\\centering",
            "\\small",
            f"\\begin{{tabular}}{{ll{'r' * ncol}}}",
            "\\toprule",
        ]
        if any(self.groups):
            width = len(self.metrics)
            heads = [f"\\multicolumn{{{width}}}{{c}}{{{_tex(g)}}}" for g in self.groups]
            out.append(" & & " + " & ".join(heads) + " \\\\")
            out.append(
                "".join(
                    f"\\cmidrule(lr){{{3 + k * width}-{2 + (k + 1) * width}}}"
                    for k in range(len(self.groups))
                )
            )
        out.append("Model & Setting & " + " & ".join(_tex(m) for _, m in self.columns()) + " \\\\")
        out.append("\\midrule")
        previous = None
        for i, (model, label) in enumerate(self.rows):
            if previous is not None and model != previous:
                out.append("\\midrule")
            cells = []
            for g, m in self.columns():
                text = _tex(self._num(self.cell(i, g, m), with_ci))
                mark = self.mark(i, g, m)
                cells.append(
                    f"\\textbf{{{text}}}"
                    if mark == "best"
                    else f"\\underline{{{text}}}"
                    if mark
                    else text
                )
            name = _tex(model) if model != previous else ""
            out.append(f"{name} & {_tex(label)} & " + " & ".join(cells) + " \\\\")
            previous = model
        out += [
            "\\bottomrule",
            "\\end{tabular}",
            f"\\caption{{{_tex(self.title)}}}",
            "\\end{table}",
        ]
        return "\n".join(out) + "\n"

    def write_csv(self, path: Path, with_ci: bool = False) -> Path:
        fields = ["model", "setting"]
        for g, m in self.columns():
            name = f"{g} {m}".strip()
            fields += [name, f"{name} mark"] + ([f"{name}_low", f"{name}_high"] if with_ci else [])
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for i, (model, label) in enumerate(self.rows):
                row: dict[str, Any] = {"model": model, "setting": label}
                for g, m in self.columns():
                    name, ci = f"{g} {m}".strip(), self.cell(i, g, m)
                    row[name] = None if ci is None else ci.mean
                    row[f"{name} mark"] = self.mark(i, g, m) or ""
                    if with_ci:
                        row[f"{name}_low"] = None if ci is None else ci.low
                        row[f"{name}_high"] = None if ci is None else ci.high
                w.writerow(row)
        return path

    def write(self, out_dir: Path, name: str, with_ci: bool = False) -> list[Path]:
        out_dir.mkdir(parents=True, exist_ok=True)
        md, tex = safe_file(out_dir, name, ".md"), safe_file(out_dir, name, ".tex")
        md.write_text(self.to_markdown(with_ci), encoding="utf-8")
        tex.write_text(self.to_latex(with_ci), encoding="utf-8")
        return [md, self.write_csv(safe_file(out_dir, name, ".csv"), with_ci), tex]

    def terminal_blocks(
        self, with_ci: bool = False
    ) -> list[tuple[str, list[str], list[list[str]]]]:
        """The table folded for a terminal: one block per column group (each with the rows and
        the metrics), so the whole stays within 80 columns; marks as * (best) and + (second)."""
        blocks = []
        for g in self.groups:
            body = []
            for i, (model, label) in enumerate(self.rows):
                cells = []
                for m in self.metrics:
                    mark = self.mark(i, g, m)
                    cells.append(
                        self._num(self.cell(i, g, m), with_ci)
                        + ("*" if mark == "best" else "+" if mark else "")
                    )
                body.append([model, label, *cells])
            blocks.append((g, ["model", "setting", *self.metrics], body))
        return blocks


def _tex(text: str) -> str:
    for a, b in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("_", "\\_")):
        text = text.replace(a, b)
    return text.replace("#", "\\#").replace("~", "\\textasciitilde{}")


def run_label(run: EvalRunRecord) -> str:
    """The model of a run as a table row names it: the responder (without its provider)."""
    return str(run.roles.get("responder") or f"answers of {run.source_run}")


def load_result(store: Store, run_id: str) -> RunResult:
    """A run's per-hop figures: the first sample of each original question, as `kg eval
    report` tables them."""
    run, variants = run_scores(store, run_id, all_samples=True)
    scores: list[QuestionScore] = [s for s in variants if s.original and s.sample == 0]
    if not scores:
        raise EvalInputError(f"run {run_id!r} has no judged answers yet")
    return result_of(run, scores)


def result_of(run: EvalRunRecord, scores: list[QuestionScore]) -> RunResult:
    table = by_hop(scores, run.uid)
    return RunResult(
        run=run.uid,
        model=run_label(run),
        setting=str(run.setting or ""),
        strategy=str(run.strategy or "plain"),
        by_hop={
            str(r["hop"]): {m: r[m] for m in PAPER_METRICS if isinstance(r.get(m), CI)}
            for r in table.rows
        },
    )


def _setting_label(r: RunResult, layout: Layout) -> str:
    label = SETTING_LABELS.get(r.setting, r.setting)
    strategy = STRATEGY_LABELS.get(r.strategy, r.strategy)
    if layout is Layout.strategies and strategy:
        return strategy
    return f"{label} {strategy}".strip()


def _order(r: RunResult) -> tuple[int, int]:
    settings, strategies = list(SETTING_LABELS), list(STRATEGY_LABELS)
    return (
        settings.index(r.setting) if r.setting in settings else len(settings),
        strategies.index(r.strategy) if r.strategy in strategies else len(strategies),
    )


def build_table(results: list[RunResult], layout: Layout) -> PaperTable:
    """Lay the runs out; two runs on the same row are told apart by their run id."""
    if not results:
        raise EvalInputError("no run given")
    models = list(dict.fromkeys(r.model for r in results))
    cells: dict[str, CI] = {}
    notes = [f"{r.run}: {r.model}, {r.setting}/{r.strategy}" for r in results]
    if layout is Layout.rag:
        settings = sorted({_setting_label(r, layout) for r in results}, key=_label_order)
        rows = [("", s) for s in settings]
        groups, metrics = models, ["PPrec", "PRec"]
        for r in results:
            i = settings.index(_setting_label(r, layout))
            for m in metrics:
                if (ci := r.by_hop.get("Overall", {}).get(m)) is not None:
                    cells[f"{i}|{r.model}|{m}"] = ci
        scopes = [[(i, g, m) for i in range(len(rows))] for g in groups for m in metrics]
        return PaperTable(
            layout=layout,
            title=_TITLES[layout],
            rows=rows,
            groups=groups,
            metrics=metrics,
            cells=cells,
            marks=_marks(cells, scopes),
            notes=notes,
        )
    ordered = sorted(results, key=lambda r: (models.index(r.model), _order(r)))
    labels = [_setting_label(r, layout) for r in ordered]
    keys = [(r.model, label) for r, label in zip(ordered, labels, strict=True)]
    rows = [
        (m, f"{lab} ({r.run})" if keys.count((m, lab)) > 1 else lab)
        for (m, lab), r in zip(keys, ordered, strict=True)
    ]
    groups = ["1-hop", "2-hop", "3-hop", "Overall"] if layout is Layout.paper else ["Overall"]
    hop_groups = {g for r in ordered for g in r.by_hop}
    groups = [g for g in groups if g in hop_groups]
    for i, r in enumerate(ordered):
        for g in groups:
            for m in PAPER_METRICS:
                if (ci := r.by_hop.get(g, {}).get(m)) is not None:
                    cells[f"{i}|{g}|{m}"] = ci
    if layout is Layout.paper:  # best per column over every row
        scopes = [[(i, g, m) for i in range(len(rows))] for g in groups for m in PAPER_METRICS]
    else:  # best per model
        scopes = [
            [(i, g, m) for i, (model, _) in enumerate(rows) if model == name]
            for name in models
            for g in groups
            for m in PAPER_METRICS
        ]
    return PaperTable(
        layout=layout,
        title=_TITLES[layout],
        rows=rows,
        groups=groups if layout is Layout.paper else [""],
        metrics=PAPER_METRICS,
        cells=cells if layout is Layout.paper else _regroup(cells, "Overall", ""),
        marks=_marks(cells, scopes)
        if layout is Layout.paper
        else _regroup(_marks(cells, scopes), "Overall", ""),
        notes=notes,
    )


def _label_order(label: str) -> int:
    names = list(SETTING_LABELS.values())
    return names.index(label) if label in names else len(names)


def _regroup(d: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    out = {}
    for key, value in d.items():
        i, g, m = key.split("|", 2)
        out[f"{i}|{new if g == old else g}|{m}"] = value
    return out


def _marks(cells: dict[str, CI], scopes: list[list[tuple[int, str, str]]]) -> dict[str, str]:
    """Best and second best (higher is better) within each scope, on the values as printed
    (two decimals), so ties print as ties; #Tok is not ranked."""
    marks: dict[str, str] = {}
    for scope in scopes:
        vals = {}
        for i, g, m in scope:
            ci = cells.get(f"{i}|{g}|{m}")
            if m not in UNRANKED and ci is not None and ci.mean is not None:
                vals[f"{i}|{g}|{m}"] = round(ci.mean, 2)
        if len(vals) < 2:
            continue
        ranked = sorted(set(vals.values()), reverse=True)
        for key, v in vals.items():
            if v == ranked[0]:
                marks[key] = "best"
            elif len(ranked) > 1 and v == ranked[1]:
                marks[key] = "second"
    return marks


def paper_table(store: Store, run_ids: list[str], layout: Layout = Layout.paper) -> PaperTable:
    return build_table([load_result(store, rid) for rid in run_ids], layout)
