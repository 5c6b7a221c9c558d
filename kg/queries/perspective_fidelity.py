"""How well the perspective grouping reproduces a benchmark's questions: for each question, is
its target set one of the candidate perspectives of its concept sequence, and is it among the
selected ones; by domain and hop, with how many perspectives the rule proposes per concept
sequence against how many distinct target sets (themes) the benchmark asks there."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from kg.queries.perspectives import Level, candidates, select
from kg.store import Store


class FidelityRow(BaseModel):
    domain: str  # "all" for the totals
    hop: int | None  # None: every hop
    questions: int = 0
    candidate: int = 0  # target set is a candidate perspective
    either: int = 0  # ... a candidate by label or by palette category
    selected: int = 0  # ... and a selected one
    sequences: int = 0  # concept sequences asked about
    proposed: int = 0  # selected perspectives over those sequences
    asked: int = 0  # distinct target sets asked over them

    @property
    def candidate_share(self) -> float:
        return self.candidate / self.questions if self.questions else 0.0

    @property
    def either_share(self) -> float:
        return self.either / self.questions if self.questions else 0.0

    @property
    def selected_share(self) -> float:
        return self.selected / self.questions if self.questions else 0.0


class FidelityReport(BaseModel):
    by: Level
    rows: list[FidelityRow]  # per domain and hop, then per domain, per hop and overall
    not_candidate: list[str] = Field(default_factory=list)  # "domain#id"
    not_selected: list[str] = Field(default_factory=list)

    def row(self, domain: str = "all", hop: int | None = None) -> FidelityRow:
        return next(r for r in self.rows if r.domain == domain and r.hop == hop)


def perspective_fidelity(
    store: Store,
    domains: Sequence[str] | None = None,
    *,
    by: Level = "label",
    palettes: Mapping[str, dict[str, str]] | None = None,
) -> FidelityReport:
    """The fidelity report over the questions of `domains` (every domain when None);
    `palettes` (domain -> label -> category) override the palettes stored on the domains."""
    questions = store.read(
        "bench/question_targets", domains=list(domains) if domains is not None else None
    )
    index: dict[str, dict[tuple, list]] = {}
    other: dict[str, set[tuple]] = {}  # (seq key, path uids) of the other level's candidates
    for dom in sorted({q["domain"] for q in questions}):
        palette = (palettes or {}).get(dom)
        found = candidates(store, dom, by=by, palette=palette)
        select(found)
        coarse = candidates(
            store, dom, by="category" if by == "label" else "label", palette=palette
        )
        other[dom] = {((p.generation, tuple(p.concept_keys)), p.path_uids) for p in coarse}
        per_seq: dict[tuple, list] = defaultdict(list)
        for p in found:
            per_seq[(p.generation, tuple(p.concept_keys))].append(p)
        index[dom] = per_seq
    keys = [(d, h) for d in [*sorted(index), "all"] for h in [1, 2, 3, None]]
    rows = {k: FidelityRow(domain=k[0], hop=k[1]) for k in keys}
    asked: dict[tuple, set[frozenset[str]]] = defaultdict(set)
    report = FidelityReport(by=by, rows=[])
    for q in questions:
        seq_key = (q["generations"][0], tuple(q["seqs"][0]))
        group = index[q["domain"]].get(seq_key, []) if len(q["seqs"]) == 1 else []
        target = frozenset(q["targets"])
        match = [p for p in group if p.path_uids == target]
        name = f"{q['domain']}#{q['id']}"
        asked[(q["domain"], q["hop"], seq_key)].add(target)
        for k in [(q["domain"], q["hop"]), (q["domain"], None), ("all", q["hop"]), ("all", None)]:
            if k not in rows:
                continue
            rows[k].questions += 1
            rows[k].candidate += bool(match)
            rows[k].either += bool(match) or (seq_key, target) in other[q["domain"]]
            rows[k].selected += any(p.selected for p in match)
        if not match:
            report.not_candidate.append(name)
        elif not any(p.selected for p in match):
            report.not_selected.append(name)
    for (dom, hop, seq_key), sets in asked.items():
        proposed = sum(p.selected for p in index[dom].get(seq_key, []))
        for k in [(dom, hop), (dom, None), ("all", hop), ("all", None)]:
            if k in rows:
                rows[k].sequences += 1
                rows[k].proposed += proposed
                rows[k].asked += len(sets)
    report.rows = [r for r in rows.values() if r.questions]
    return report
