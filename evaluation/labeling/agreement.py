"""Agreement between annotators' label files, and their merge into one gold file.

Label files are gold files (docs/judge-gold-format.md), one per annotator, e.g. saved from the
page of `kg judge annotate`. Agreement is measured on the path decisions of the answers every
compared annotator labeled: Cohen's kappa for each pair, Fleiss' kappa when there are three or
more. The merged gold takes the majority label of each path; a tie (or, with an adjudication
file, any answer that file lists) takes the adjudicated label, and the annotators' own labels
are kept (`annotators`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from evaluation.labeling.task import TaskFileError
from evaluation.reporting import Table, agreement
from evaluation.runs.jsonl_rows import JsonlRows


class LabelRow(BaseModel):
    answer_id: str
    present: dict[str, bool]
    row: dict[str, Any]  # the whole line (question, answer, style... for the merged gold)
    line: int


class Pair(BaseModel):
    a: str
    b: str
    answers: int
    decisions: int
    agreement: float | None  # percent
    kappa: float | None


class AgreementResult(BaseModel):
    files: list[str]
    shared_answers: int
    decisions: int
    pairs: list[Pair]
    fleiss: float | None  # three or more annotators


def load_labels(path: Path, *, need_rows: bool = True) -> dict[str, LabelRow]:
    """answer_id -> labels of one label (or adjudication) file; bad lines as file:line:field."""
    rows = JsonlRows(path, TaskFileError)
    out: dict[str, LabelRow] = {}
    for n, row, bad in rows:
        aid = row.get("answer_id")
        present = row.get("present")
        if not isinstance(aid, str) or not aid.strip():
            bad("answer_id", "missing (a non-empty string)")
            continue
        if aid in out:
            bad("answer_id", f"duplicate of line {out[aid].line}")
            continue
        if not isinstance(present, dict) or not present:
            bad("present", "missing (an object {path name: true/false})")
            continue
        wrong = [k for k, v in present.items() if not isinstance(v, bool)]
        for k in wrong:
            bad(f"present.{k}", f"label must be true or false, got {present[k]!r}")
        if need_rows:
            for field in ("question_id", "answer"):
                if field not in row:
                    bad(field, "missing (a label file is a gold file: see `kg judge annotate`)")
        if not wrong:
            out[aid] = LabelRow(answer_id=aid, present=present, row=row, line=n)
    rows.finish(bool(out), "no labeled answers in the file")
    return out


def check_consistent(files: Sequence[Path], labels: Sequence[dict[str, LabelRow]]) -> None:
    """The same answer has the same question, text and path names in every file."""
    problems = []
    first: dict[str, tuple[Path, LabelRow]] = {}
    for f, by_id in zip(files, labels, strict=True):
        for aid, r in by_id.items():
            if aid not in first:
                first[aid] = (f, r)
                continue
            f0, r0 = first[aid]
            for field in ("question_id", "domain", "answer"):
                if r.row.get(field) != r0.row.get(field):
                    problems.append(f"{f}:{r.line}:{field}: differs from {f0}:{r0.line}")
            if set(r.present) != set(r0.present):
                problems.append(
                    f"{f}:{r.line}:present: path names {sorted(r.present)} differ from "
                    f"{f0}:{r0.line} ({sorted(r0.present)})"
                )
    if problems:
        raise TaskFileError(problems)


def _decisions(labels: Sequence[dict[str, LabelRow]], ids: Sequence[str]) -> np.ndarray:
    """(decisions, annotators) matrix of booleans over the given answers' paths."""
    cols = []
    for by_id in labels:
        cols.append([by_id[a].present[p] for a in ids for p in sorted(labels[0][a].present)])
    return np.array(cols, dtype=bool).T.reshape(-1, len(labels))


def fleiss_kappa(m: np.ndarray) -> float | None:
    """Fleiss' kappa of an (items, raters) boolean matrix (every item rated by all raters).
    Written out (a few lines of the textbook formula) rather than pulling statsmodels in."""
    n_items, n_raters = m.shape
    if n_items == 0 or n_raters < 2:
        return None
    counts = np.stack([m.sum(axis=1), (~m).sum(axis=1)], axis=1).astype(float)  # (items, 2)
    p_cat = counts.sum(axis=0) / (n_items * n_raters)
    p_item = ((counts**2).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1))
    p_bar, p_e = p_item.mean(), (p_cat**2).sum()
    if p_e >= 1:
        return 1.0 if p_bar == 1 else 0.0
    return float((p_bar - p_e) / (1 - p_e))


def measure(files: Sequence[Path], labels: Sequence[dict[str, LabelRow]]) -> AgreementResult:
    names = [str(f) for f in files]
    pairs = []
    for (i, a), (j, b) in combinations(enumerate(labels), 2):
        ids = sorted(set(a) & set(b))
        m = _decisions([a, b], ids)
        ag = agreement(list(m[:, 0]), list(m[:, 1]), labels=[True, False])
        pairs.append(
            Pair(
                a=names[i],
                b=names[j],
                answers=len(ids),
                decisions=ag.n,
                agreement=ag.percent,
                kappa=ag.kappa,
            )
        )
    shared = sorted(set.intersection(*(set(x) for x in labels)))
    m = _decisions(labels, shared)
    return AgreementResult(
        files=names,
        shared_answers=len(shared),
        decisions=int(m.shape[0]),
        pairs=pairs,
        fleiss=fleiss_kappa(m) if len(labels) >= 3 else None,
    )


def agreement_table(r: AgreementResult) -> Table:
    rows: list[dict[str, Any]] = [
        {
            "annotators": f"{Path(p.a).name} vs {Path(p.b).name}",
            "answers": p.answers,
            "path decisions": p.decisions,
            "agreement %": p.agreement,
            "kappa": p.kappa,
            "measure": "Cohen",
        }
        for p in r.pairs
    ]
    if r.fleiss is not None:
        rows.append(
            {
                "annotators": f"all {len(r.files)}",
                "answers": r.shared_answers,
                "path decisions": r.decisions,
                "agreement %": None,
                "kappa": r.fleiss,
                "measure": "Fleiss",
            }
        )
    return Table(
        title="Annotator agreement (path level)",
        columns=["annotators", "measure", "answers", "path decisions", "agreement %", "kappa"],
        rows=rows,
        notes=["Each pair on the answers both labeled; Fleiss' kappa on the answers all labeled."],
        digits={"agreement %": 1},
    )


def merge(
    labels: Sequence[dict[str, LabelRow]],
    adjudicated: dict[str, LabelRow] | None = None,
    adjudication_file: Path | None = None,
) -> list[dict[str, Any]]:
    """Merged gold rows: the majority per path, the adjudication where given (it must cover
    every tie); each row keeps the annotators' labels. Answers in the order first seen."""
    adjudicated = adjudicated or {}
    order = list(dict.fromkeys(a for by_id in labels for a in by_id))
    problems = []
    if adjudication_file is not None:
        for aid, r in adjudicated.items():
            if aid not in order:
                problems.append(f"{adjudication_file}:{r.line}:answer_id: not in the label files")
    out = []
    for aid in order:
        own = [by_id[aid] for by_id in labels if aid in by_id]
        names = sorted(own[0].present)
        merged: dict[str, bool] = {}
        adj = adjudicated.get(aid)
        for p in names:
            votes = sum(r.present[p] for r in own)
            if adj is not None and p in adj.present:
                merged[p] = adj.present[p]
            elif 2 * votes != len(own):
                merged[p] = 2 * votes > len(own)
            else:
                problems.append(
                    f"{aid}:{p}: tie ({votes} present, {len(own) - votes} absent): give its "
                    "label in an adjudication file (--adjudicate)"
                )
        if adj is not None:
            extra = sorted(set(adj.present) - set(names))
            if extra:
                problems.append(
                    f"{adjudication_file}:{adj.line}:present.{extra[0]}: unknown path name"
                )
        row = {k: v for k, v in own[0].row.items() if k not in ("present", "annotator")}
        out.append({**row, "present": merged, "annotators": [r.present for r in own]})
    if problems:
        raise TaskFileError(problems)
    return out


def write_gold(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path
