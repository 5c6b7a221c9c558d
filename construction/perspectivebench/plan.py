"""Turn validated questions into the row lists the import queries UNWIND (pure, no database).

Identity follows docs/graph-model.md: one Concept per domain+key, one Fact per domain+sentence,
one RELATES edge per domain+from+label+to, one Path per domain+signature (questions that name the
same signature share it). What the graph already holds is canonical; where a line disagrees with
it (the same concept with another summary, the same path with other reasons) the line's own
version is kept on its POOL / TARGET / DISTRACTOR link as an override, so export reproduces every
line exactly.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from construction.perspectivebench.models import BenchQuestion, render_topic_words
from construction.perspectivebench.report import Problem
from construction.perspectivebench.validation import LineRef, two_summaries
from kg import ids
from kg.collector import collector_paused
from kg.paths import base_key
from kg.store import check_identifier


class ImportPlan(BaseModel):
    domains: list[dict[str, Any]] = Field(default_factory=list)
    concepts: list[dict[str, Any]] = Field(default_factory=list)
    facts: list[dict[str, Any]] = Field(default_factory=list)
    key_evidence: list[dict[str, Any]] = Field(default_factory=list)
    edges: list[dict[str, Any]] = Field(default_factory=list)
    paths: list[dict[str, Any]] = Field(default_factory=list)
    questions: list[dict[str, Any]] = Field(default_factory=list)
    targets: list[dict[str, Any]] = Field(default_factory=list)
    distractors: list[dict[str, Any]] = Field(default_factory=list)
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    pool: list[dict[str, Any]] = Field(default_factory=list)
    warnings: list[Problem] = Field(default_factory=list)
    # focused-evidence sentences in no Key Evidence list of their question's pool: kept, and
    # stored as Facts linked only by (:Question)-[:EVIDENCE]->(:Fact) (no concept holds them)
    evidence_outside_pool: int = 0
    questions_with_outside_evidence: int = 0

    def concept_uids(self) -> list[str]:
        return [c["uid"] for c in self.concepts]

    def path_uids(self) -> list[str]:
        return [p["uid"] for p in self.paths]


def render_pool_entry(
    summary: str | None, topic_words: list[str] | None, key_evidence: list[str]
) -> dict[str, Any]:
    """A concept as a `full_content_pool` entry, derived from graph properties only."""
    out: dict[str, Any] = {"Summary": summary if summary is not None else ""}
    if topic_words is not None:
        out["Topic Words"] = render_topic_words(topic_words)
    out["Key Evidence"] = list(key_evidence)
    return out


def concept_text(summary: str, topic_words: list[str] | None) -> str:
    return " ".join([summary, *(topic_words or [])])


class _Builder:
    def __init__(
        self,
        existing_concepts: dict[str, dict[str, Any]],
        existing_paths: dict[str, list[str]],
        source: str,
        palette: dict[str, str] | None,
        domain_palettes: dict[str, dict[str, str]] | None,
    ) -> None:
        self.plan = ImportPlan()
        # canonical pool entry / path reasons per uid: the graph's first, else the first line's
        self.entries = dict(existing_concepts)
        self.path_reasons = dict(existing_paths)
        self.existing_concepts = set(existing_concepts)
        self.existing_paths = set(existing_paths)
        self.provenance = json.dumps({"stage": "import", "source": source})
        self.palette = palette or {}
        self.domain_palettes = domain_palettes or {}
        self.seen: dict[str, set[str]] = {k: set() for k in ("dom", "con", "fact", "edge", "path")}

    def _once(self, kind: str, uid: str) -> bool:
        if uid in self.seen[kind]:
            return False
        self.seen[kind].add(uid)
        return True

    def category(self, domain: str, label: str) -> str | None:
        return self.domain_palettes.get(domain, {}).get(label) or self.palette.get(label)

    def fact(self, domain: str, text: str) -> str:
        uid = ids.fact_uid(domain, text)
        if self._once("fact", uid):
            self.plan.facts.append(
                {"uid": uid, "domain": domain, "text": text, "provenance": self.provenance}
            )
        return uid

    def concept(self, ref: LineRef, q: BenchQuestion, pool_key: str) -> tuple[str, str | None]:
        """MERGE row for the concept; returns (uid, override JSON or None)."""
        key, entry, raw = base_key(pool_key), q.pool[pool_key], q.raw_pool[pool_key]
        uid = ids.concept_uid(q.domain, key)
        if self._once("con", uid):
            self.plan.concepts.append(
                {
                    "uid": uid,
                    "domain": q.domain,
                    "key": key,
                    "summary": entry.summary,
                    "topic_words": entry.topic_words,
                    "provenance": self.provenance,
                    "text": concept_text(entry.summary, entry.topic_words),
                }
            )
            fact_uids = [self.fact(q.domain, s) for s in entry.key_evidence]
            if uid not in self.existing_concepts:
                self.entries[uid] = render_pool_entry(
                    entry.summary, entry.topic_words, entry.key_evidence
                )
                self.plan.key_evidence.extend(
                    {"concept": uid, "rank": rank, "fact": f} for rank, f in enumerate(fact_uids)
                )
        canonical = self.entries[uid]
        if raw == canonical:
            return uid, None
        for sentence in entry.key_evidence:  # a variant's sentences are facts of the domain too
            self.fact(q.domain, sentence)
        # (two lines of one import that disagree are already reported by validation)
        if uid in self.existing_concepts and canonical.get("Summary") != entry.summary:
            first = f"the graph: {canonical.get('Summary')!r}"
            self.plan.warnings.append(
                two_summaries(ref, q.domain, pool_key, first, entry.summary, " (kept per question)")
            )
        return uid, json.dumps(raw, ensure_ascii=False)

    def path(self, q: BenchQuestion, pos: int) -> tuple[str, list[str] | None]:
        """MERGE rows for the path and its edges; returns (uid, reasons override or None)."""
        entry = q.valid_paths[pos]
        p, dom = entry.path, q.domain
        uid = ids.path_uid(dom, p.signature)
        if self._once("path", uid):
            edge_uids = []
            for (a, b), label, reason in zip(
                zip(p.keys, p.keys[1:], strict=False), p.labels, entry.reasons, strict=True
            ):
                check_identifier(label, "relation label")  # parsed strictly already; re-checked
                e_uid = ids.relates_uid(dom, a, label, b)
                edge_uids.append(e_uid)
                if self._once("edge", e_uid):
                    self.plan.edges.append(
                        {
                            "uid": e_uid,
                            "domain": dom,
                            "label": label,
                            "reason": reason,
                            "from": ids.concept_uid(dom, a),
                            "to": ids.concept_uid(dom, b),
                            "category": self.category(dom, label),
                            "provenance": self.provenance,
                        }
                    )
            self.plan.paths.append(
                {
                    "uid": uid,
                    "domain": dom,
                    "signature": p.signature,
                    "hops": p.hops,
                    "labels": list(p.labels),
                    "concept_keys": list(p.keys),
                    "edge_uids": edge_uids,
                    "reasons": list(entry.reasons),
                    "provenance": self.provenance,
                    "start": ids.concept_uid(dom, p.keys[0]),
                    "end": ids.concept_uid(dom, p.keys[-1]),
                }
            )
            self.path_reasons.setdefault(uid, list(entry.reasons))
        override = None if self.path_reasons[uid] == entry.reasons else list(entry.reasons)
        return uid, override

    def question(self, ref: LineRef, q: BenchQuestion) -> None:
        dom = q.domain
        if self._once("dom", dom):
            self.plan.domains.append({"name": dom})
        q_uid = ids.question_uid(dom, q.id)
        self.plan.questions.append(
            {
                "uid": q_uid,
                "id": q.id,
                "domain": dom,
                "theme": q.theme,
                "text": q.text,
                "hop": q.hop,
                "provenance": self.provenance,
            }
        )
        for pos, pool_key in enumerate(q.pool):
            c_uid, override = self.concept(ref, q, pool_key)
            self.plan.pool.append(
                {
                    "question": q_uid,
                    "concept": c_uid,
                    "key": pool_key,
                    "pos": pos,
                    "override": override,
                }
            )
        tpos = {p: i for i, p in enumerate(q.target_pos)}
        for pos, entry in enumerate(q.valid_paths):
            p_uid, path_override = self.path(q, pos)
            row = {
                "question": q_uid,
                "path": p_uid,
                "name": entry.name,
                "pos": pos,
                "tpos": tpos.get(pos),
                "reasons": path_override,
            }
            (self.plan.targets if pos in tpos else self.plan.distractors).append(row)
        in_pool = {s for entry in q.pool.values() for s in entry.key_evidence}
        outside = sum(1 for s in q.focused_evidence if s not in in_pool)
        self.plan.evidence_outside_pool += outside
        self.plan.questions_with_outside_evidence += outside > 0
        for rank, sentence in enumerate(q.focused_evidence):
            self.plan.evidence.append(
                {"question": q_uid, "fact": self.fact(dom, sentence), "rank": rank}
            )


def build_plan(
    questions: list[tuple[LineRef, BenchQuestion]],
    *,
    existing_concepts: dict[str, dict[str, Any]] | None = None,
    existing_paths: dict[str, list[str]] | None = None,
    source: str = "perspectivebench",
    palette: dict[str, str] | None = None,
    domain_palettes: dict[str, dict[str, str]] | None = None,
) -> ImportPlan:
    """Rows for every write of an import. `existing_*` are what the graph holds already
    (concept uid -> rendered pool entry, path uid -> reasons), used as the canonical versions;
    edge categories come from `domain_palettes[domain]`, else `palette` (label -> category)."""
    b = _Builder(existing_concepts or {}, existing_paths or {}, source, palette, domain_palettes)
    with collector_paused():  # every row stays alive to the end: see kg/collector.py
        for ref, q in questions:
            b.question(ref, q)
    return b.plan


def planned_uids(questions: list[tuple[LineRef, BenchQuestion]]) -> tuple[list[str], list[str]]:
    """Concept and path uids an import will touch (to read what the graph holds first)."""
    concepts: set[str] = set()
    paths: set[str] = set()
    for _, q in questions:
        concepts.update(ids.concept_uid(q.domain, base_key(k)) for k in q.pool)
        paths.update(ids.path_uid(q.domain, p.path.signature) for p in q.valid_paths)
    return sorted(concepts), sorted(paths)
