"""The set of rows one import writes, with the counts it reports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from construction.perspectra.models import (
    CommentRow,
    ExpansionRow,
    MatchRow,
    OpinionRow,
    TopicRow,
)


def provenance(stage: str, source: str, **extra: object) -> str:
    """The `provenance` property: a JSON string (never an API key)."""
    return json.dumps({"stage": stage, "source": source, **extra}, sort_keys=True)


@dataclass
class ImportRows:
    topics: list[TopicRow] = field(default_factory=list)
    opinions: list[OpinionRow] = field(default_factory=list)
    comments: list[CommentRow] = field(default_factory=list)
    matches: list[MatchRow] = field(default_factory=list)
    expansions: list[ExpansionRow] = field(default_factory=list)
    # (comment uid, topic uid) pairs: Reddit candidates retrieved for a topic
    candidates: list[tuple[str, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "topics": len(self.topics),
            "opinions": len(self.opinions),
            "comments": len(self.comments),
            "matches": len(self.matches),
            "expansions": len(self.expansions),
            "candidates": len(self.candidates),
        }
