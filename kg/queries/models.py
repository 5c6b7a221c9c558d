"""Typed results of the graph queries."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kg.paths import ReasoningPath


class GraphPath(ReasoningPath):
    """The path view of a chain of RELATES edges: one reason, edge uid and category per hop."""

    reasons: list[str | None]
    edge_uids: list[str]
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
    """A group of paths between two concepts that share an explanatory focus.

    `name` is the focus (palette category, or relation label where no category is known; a
    multi-hop focus reads `a > b`); `keys` are the candidate groups GDS merged into it.
    """

    name: str
    keys: list[list[str]]
    features: list[str]
    paths: list[GraphPath]
    questions: list[QuestionRef] = Field(default_factory=list)  # whose targets fall here

    @property
    def signatures(self) -> list[str]:
        return [p.signature for p in self.paths]
