"""Typed results of the graph queries."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kg.paths import ReasoningPath


class GraphPath(ReasoningPath):
    """The path view of a chain of RELATES edges: one reason, edge uid and category per hop."""

    reasons: list[str | None]
    edge_uids: list[str]
    uid: str | None = None  # the stored Path node's uid, where the path is one
    categories: list[str | None] = Field(default_factory=list)


class PathGroup(BaseModel):
    """Paths that share a relation-label signature (e.g. CAUSES > ENABLES)."""

    labels: list[str]
    paths: list[GraphPath]

    @property
    def label_signature(self) -> str:
        return " > ".join(self.labels)


class QuestionRef(BaseModel):
    id: int | None
    domain: str
    theme: str | None = None
    text: str | None = None
    targets: list[str] = Field(default_factory=list)  # target path signatures


class Perspective(BaseModel):
    """The valid paths over one concept sequence that share a relation at one hop position.

    `focus` is that relation (a label, or a palette category when grouped by `level`
    "category"); `hop` counts from 1 (0, `level` "sequence": all the paths over this sequence,
    a candidate where several sequences join the endpoints, never selected); `also_at` lists
    other hops that cut out the same paths; `foci_at_hop` is how many relations the paths
    differ by at that hop; `group_size` is how many valid paths the concept sequence has.
    `selected` marks the perspectives the selection rule asks (`kg.queries.perspectives.select`).
    """

    concept_keys: list[str]
    generation: int = 0
    hop: int
    focus: str
    level: str = "label"
    also_at: list[int] = Field(default_factory=list)
    foci_at_hop: int
    group_size: int
    paths: list[GraphPath]
    selected: bool = False
    questions: list[QuestionRef] = Field(default_factory=list)  # whose targets are this set

    @property
    def name(self) -> str:
        if not self.hop:  # every path over one of several sequences between the endpoints
            return "via " + " > ".join(self.concept_keys[1:-1] or ["(direct)"])
        return f"{self.focus} @ hop {self.hop}"

    @property
    def signatures(self) -> list[str]:
        return [p.signature for p in self.paths]

    @property
    def path_uids(self) -> frozenset[str]:
        return frozenset(p.uid for p in self.paths if p.uid)
