"""How far a run's judge can be trusted, as reports print it.

A judge's stored validations (`JudgeValidation` nodes, one per gold file) are read per kind of
answers: the newest validation on natural answers is the headline (that is what a model's
answers look like), the newest on constructed answers stands beside it. Every figure names its
gold file and hash. A kappa below 0.6 never reads as validated, and a run whose answers differ
from the gold answers that validated the judge (length, setting) gets a warning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from evaluation.judges.gold_kinds import kind_of_style, setting_of_style
from kg.store import Store

TRUSTED_KAPPA = 0.6  # below it a judge is "weak": no green badge
Level = Literal["validated", "weak", "constructed-only", "unvalidated"]


class KindFigure(BaseModel):
    """One judge's kappa on one kind of gold answers, with where it came from."""

    kind: str
    kappa: float | None
    low: float | None = None
    high: float | None = None
    paths: int | None = None
    answers: int | None = None
    gold: str = "?"  # gold file name
    sha: str = ""  # sha256 prefix
    at: str = ""
    words: list[float] | None = None  # min, median, max of the gold answers' lengths
    settings: list[str] | None = None  # run settings the gold answers stand for

    def kappa_text(self) -> str:
        if self.kappa is None:
            return "kappa undefined"
        ci = f" [{self.low:.2f}, {self.high:.2f}]" if None not in (self.low, self.high) else ""
        return f"kappa {self.kappa:.2f}{ci}"

    def source(self) -> str:
        n = f"{self.paths} path decisions, {self.answers} answers, " if self.paths else ""
        return f"{n}{self.gold}, sha256 {self.sha[:12]}, {self.at[:10]}"

    def text(self) -> str:
        return f"{self.kappa_text()} on {self.kind} answers ({self.source()})"


class JudgeTrust(BaseModel):
    judge: str | None
    natural: KindFigure | None = None
    constructed: KindFigure | None = None
    other: KindFigure | None = None  # answers of unknown kind

    @property
    def level(self) -> Level:
        if self.natural is not None:
            k = self.natural.kappa
            return "validated" if k is not None and k >= TRUSTED_KAPPA else "weak"
        if self.constructed is not None or self.other is not None:
            return "constructed-only"
        return "unvalidated"

    @property
    def headline(self) -> KindFigure | None:
        return self.natural or self.constructed or self.other

    def badge(self) -> str:
        """Green (`ok`) only for a kappa of at least 0.6 on natural answers."""
        if self.level == "validated":
            return "ok"
        k = self.natural.kappa if self.natural else None
        return "warn" if self.level == "constructed-only" or (k or 0) >= 0.4 else "bad"

    def summary(self) -> str:
        """One phrase: the headline kappa and the word that says how far to trust it."""
        n, c = self.natural, self.constructed or self.other
        if n is None and c is None:
            return "unvalidated"
        parts = []
        if n is not None:
            word = "validated" if self.level == "validated" else "weak"
            parts.append(f"{word}: {n.kappa_text()} on natural answers")
        else:
            parts.append("unvalidated on natural answers")
        if c is not None:
            parts.append(f"{c.kappa_text()} on {c.kind} answers")
        return "; ".join(parts)

    def line(self) -> str:
        if not self.judge:
            return "judge: unknown"
        if self.headline is None:
            return f"judge {self.judge}: unvalidated (no `kg judge validate` result in the graph)"
        figures = [f.text() for f in (self.natural, self.constructed, self.other) if f]
        head = {
            "validated": "validated",
            "weak": f"weak (kappa below {TRUSTED_KAPPA} on natural answers)",
            "constructed-only": "unvalidated on natural answers",
        }[self.level]
        return f"judge {self.judge}: {head}. " + "; ".join(figures)

    def warnings(self, answer_words: Sequence[int], setting: str | None) -> list[str]:
        """Where a run's answers differ from the gold answers that validated the judge."""
        f = self.headline
        if f is None:
            return []
        out = []
        src = f"the {f.kind} gold answers ({f.gold})"
        if answer_words and f.words:
            median = float(np.median(answer_words))
            lo, hi = f.words[0], f.words[2]
            if not lo <= median <= hi:
                out.append(
                    f"warning: the run's answers (median {median:.0f} words) are outside the "
                    f"length range of {src}: {lo:.0f}-{hi:.0f} words"
                )
        if setting and f.settings is not None and setting not in f.settings:
            covered = ", ".join(f.settings) or "no run setting (constructed answers)"
            out.append(
                f"warning: the judge was never validated on answers of the {setting} setting: "
                f"{src} stand for {covered}"
            )
        return out


def _summary(node: Mapping[str, Any]) -> dict[str, Any]:
    try:
        out = json.loads(str(node.get("summary") or "{}"))
    except json.JSONDecodeError:
        return {}
    return out if isinstance(out, dict) else {}


def figures_of(node: Mapping[str, Any]) -> list[KindFigure]:
    """The kind figures of one stored validation (validations stored before kinds existed:
    the kind of its styles when they are all of one kind, else unknown)."""
    common = {
        "gold": Path(str(node.get("gold_file") or "?")).name,
        "sha": str(node.get("gold_hash") or ""),
        "at": str(node.get("at") or ""),
    }
    out = []
    for kind in ("natural", "constructed", "unknown"):
        if f"{kind}_paths" in node:
            words = node.get(f"{kind}_words")
            out.append(
                KindFigure(
                    kind=kind,
                    kappa=node.get(f"{kind}_kappa"),
                    low=node.get(f"{kind}_kappa_low"),
                    high=node.get(f"{kind}_kappa_high"),
                    paths=node.get(f"{kind}_paths"),
                    answers=node.get(f"{kind}_answers"),
                    words=list(words) if words is not None else None,
                    settings=list(node.get(f"{kind}_settings") or []),
                    **common,
                )
            )
    if out or "kappa" not in node:
        return out
    styles = [g.get("group", "") for g in _summary(node).get("by_style", [])]
    kinds = {kind_of_style(s) for s in styles}
    kind = next(iter(kinds)) if len(kinds) == 1 else "unknown"
    settings = sorted({s for st in styles if (s := setting_of_style(st))})
    kappa = node.get("kappa")
    return [
        KindFigure(
            kind=kind,
            kappa=float(kappa) if isinstance(kappa, int | float) else None,
            low=node.get("kappa_low"),
            high=node.get("kappa_high"),
            paths=node.get("paths"),
            answers=node.get("answers"),
            settings=settings if styles else None,
            **common,
        )
    ]


def judge_trust(judge: str | None, nodes: Sequence[Mapping[str, Any]]) -> JudgeTrust:
    """From a judge's stored validations, newest first."""
    t = JudgeTrust(judge=judge)
    for node in nodes:
        for f in figures_of(node):
            slot = f.kind if f.kind in ("natural", "constructed") else "other"
            if getattr(t, slot) is None:
                setattr(t, slot, f)
    return t


def judge_trusts(store: Store, judges: Sequence[str]) -> dict[str, JudgeTrust]:
    """judge name -> its trust (a judge never validated: `unvalidated`)."""
    names = list(dict.fromkeys(j for j in judges if j))
    rows = store.query("eval/judge_validations", judges=names) if names else []
    nodes: dict[str, list[dict[str, Any]]] = {j: [] for j in names}
    for r in rows:  # newest first
        nodes[r["v"]["judge"]].append(r["v"])
    return {j: judge_trust(j, ns) for j, ns in nodes.items()}


def run_answer_words(store: Store, run_id: str) -> list[int]:
    """Length in words of each answer a run judged."""
    rows = store.query("eval/run_answer_texts", uid=run_id)
    return [len(str(r["text"] or "").split()) for r in rows]
