"""One question with its target and distractor paths, evidence, pool and perspective groups."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from kg.paths import ReasoningPath
from kg.store import Store


class QuestionPath(ReasoningPath):
    """The path view of a question: a target or a distractor, with its name and reasons."""

    role: str  # "target" | "distractor"
    name: str | None
    pos: int | None
    reasons: list[str | None] = Field(default_factory=list)
    perspective: str | None = None  # the perspective group the path falls in, when computed


class QuestionDetail(BaseModel):
    uid: str
    id: int | None
    domain: str
    theme: str | None
    text: str | None
    hop: int | None
    paths: list[QuestionPath]
    evidence: list[str]
    pool: list[dict[str, Any]]

    @property
    def targets(self) -> list[QuestionPath]:
        return [p for p in self.paths if p.role == "target"]

    @property
    def distractors(self) -> list[QuestionPath]:
        return [p for p in self.paths if p.role == "distractor"]

    @property
    def endpoints(self) -> tuple[str, str] | None:
        """(start key, end key) shared by all its paths, if they share them."""
        ends = {(p.keys[0], p.keys[-1]) for p in self.paths if p.keys}
        return ends.pop() if len(ends) == 1 else None


def question_details(store: Store, qid: int, domain: str | None = None) -> list[QuestionDetail]:
    """Every question with this file id (one per domain unless `domain` narrows it)."""
    return [QuestionDetail(**r) for r in store.read("bench/question_detail", id=qid, domain=domain)]


def annotate_perspectives(
    store: Store, q: QuestionDetail, palette: dict[str, str] | None = None
) -> None:
    """Set each path's `perspective`: the candidate perspectives between the question's
    endpoints that hold it (`relation @ hop`, a star marking the question's own target set)."""
    from kg.queries.perspectives import group_perspectives

    ends = q.endpoints
    if ends is None:
        return
    groups = group_perspectives(store, q.domain, ends[0], ends[1], palette)
    targets = frozenset(p.signature for p in q.targets)
    for p in q.paths:
        names = [
            g.name + (" *" if frozenset(g.signatures) == targets else "")
            for g in groups
            if p.signature in g.signatures
        ]
        p.perspective = "\n".join(names) or None
