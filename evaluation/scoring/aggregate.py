"""Tables of a run's scores: per hop with the overall row (weighted by questions per hop), per
domain and per perspective theme; every cell a mean with its bootstrap 95% CI."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from evaluation.reporting import CI, Table, bootstrap_cis
from evaluation.scoring.question_scores import QuestionScore
from kg.themes import OTHER, ThemeCategory

# column -> (value getter, scale); percentages like the paper's tables
METRICS: dict[str, tuple[Callable[[QuestionScore], float | None], float]] = {
    "PPrec": (lambda s: s.precision, 100.0),
    "PRec": (lambda s: s.recall, 100.0),
    "PAS": (lambda s: s.pas, 100.0),
    "PPrec~": (lambda s: s.partial_precision, 100.0),
    "PRec~": (lambda s: s.partial_recall, 100.0),
    "PAS~": (lambda s: s.partial_pas, 100.0),
    "Faithfulness": (lambda s: s.faithfulness, 100.0),
    "#Tok": (lambda s: None if s.tokens is None else float(s.tokens), 1.0),
    "Relevancy": (lambda s: s.relevancy, 1.0),
}
# decimals a figure carries: percentages and token counts to 1, cosines to 2
DIGITS = {
    name: 1 if scale == 100.0 or name == "#Tok" else 2 for name, (_, scale) in METRICS.items()
}
NOTES = [
    "PPrec/PRec/PAS: all-or-nothing path verdicts, in %; PPrec~/PRec~/PAS~: partial variant "
    "(edge-level credit within a path).",
    "Cells: mean [bootstrap 95% CI]; Overall is weighted by questions per hop.",
    "|A|=0 items count as precision 0 (column 'flagged |A|=0').",
]


def metric_cis(
    scores: list[QuestionScore],
    *,
    stratify_by_hop: bool = False,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, CI]:
    strata = [s.hop for s in scores] if stratify_by_hop else None
    columns = {
        name: [None if (v := get(s)) is None else v * scale for s in scores]
        for name, (get, scale) in METRICS.items()
    }
    return bootstrap_cis(columns, strata=strata, resamples=resamples, seed=seed)


def _row(label: str, key: str, scores: list[QuestionScore], **kw: Any) -> dict:
    return {
        key: label,
        "n": len(scores),
        **metric_cis(scores, **kw),
        "flagged |A|=0": sum(s.empty_a for s in scores),
    }


def _columns(key: str) -> list[str]:
    return [key, "n", *METRICS, "flagged |A|=0"]


def by_hop(scores: list[QuestionScore], title: str) -> Table:
    rows = [
        _row(f"{h}-hop", "hop", [s for s in scores if s.hop == h])
        for h in sorted({s.hop for s in scores})
    ]
    rows.append(_row("Overall", "hop", scores, stratify_by_hop=True))
    return Table(title=title, columns=_columns("hop"), rows=rows, notes=NOTES, digits=DIGITS)


def by_field(scores: list[QuestionScore], field: str, title: str) -> Table:
    groups = sorted({str(getattr(s, field)) for s in scores})
    rows = [_row(g, field, [s for s in scores if str(getattr(s, field)) == g]) for g in groups]
    return Table(title=title, columns=_columns(field), rows=rows, notes=NOTES[1:2], digits=DIGITS)


def by_theme(scores: list[QuestionScore], themes: Mapping[str, ThemeCategory], title: str) -> Table:
    """Per domain and theme category (the domain's palette categories, the paper's Figure 5
    way), with the raw themes each category gathers kept beside (count per raw string)."""
    groups: dict[tuple[str, str], list[QuestionScore]] = {}
    raw: dict[tuple[str, str], Counter[str]] = {}
    for s in scores:
        t = themes.get(s.question)
        key = (s.domain, t.label if t else OTHER)
        groups.setdefault(key, []).append(s)
        raw.setdefault(key, Counter())[str(s.theme)] += 1
    rows = []
    for key in sorted(groups):
        row = _row(key[1], "theme category", groups[key])
        row["domain"] = key[0]
        row["raw themes"] = ", ".join(
            f"{name} ×{n}" if n > 1 else name for name, n in sorted(raw[key].items())
        )
        rows.append(row)
    return Table(
        title=title,
        columns=["domain", *_columns("theme category"), "raw themes"],
        rows=rows,
        notes=[
            *NOTES[1:2],
            "Themes normalised (case, separators, synonyms) and mapped to the domain's relation "
            "palette categories (kg/themes.py); 'raw themes' lists the stored strings.",
        ],
        digits=DIGITS,
    )
