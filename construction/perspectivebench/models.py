"""Pydantic models of one PerspectiveBench JSONL line (the published format, field for field)."""

from __future__ import annotations

import ast
import functools
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from kg.paths import ParsedPath, base_key, parse_path

NonEmptyStr = Field(min_length=1)


class PathEntry(BaseModel):
    """`{"path_N": "a -- L --> b", "reason": ...}` or one `<from>_reason_<to>` key per hop."""

    name: str
    path: ParsedPath
    reasons: list[str]

    def to_json(self) -> dict[str, str]:
        out = {self.name: self.path.signature}
        out.update(zip(self.path.reason_keys(), self.reasons, strict=True))
        return out


class PoolEntry(BaseModel):
    """One concept of `full_content_pool`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    summary: StrictStr = Field(alias="Summary")
    topic_words: list[StrictStr] | None = Field(default=None, alias="Topic Words")
    key_evidence: list[StrictStr] = Field(alias="Key Evidence")

    @field_validator("topic_words", mode="before")
    @classmethod
    def _parse_topic_words(cls, value: Any) -> Any:
        # The published file holds a Python-style list in a string: parse it as a literal,
        # never evaluate it as code.
        return list(_topic_words(value)) if isinstance(value, str) else value


@functools.lru_cache(maxsize=65536)  # a concept's entry repeats in every question that pools it
def _topic_words(value: str) -> tuple[str, ...]:
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a list of strings: {value[:80]!r}") from exc
    if not isinstance(parsed, list) or not all(isinstance(w, str) for w in parsed):
        raise ValueError(f"not a list of strings: {value[:80]!r}")
    return tuple(parsed)

    def to_json(self) -> dict[str, Any]:
        """The entry as the published file writes it (Topic Words as a Python-style list)."""
        out: dict[str, Any] = {"Summary": self.summary}
        if self.topic_words is not None:
            out["Topic Words"] = render_topic_words(self.topic_words)
        out["Key Evidence"] = list(self.key_evidence)
        return out


def render_topic_words(words: list[str]) -> str:
    """Topic words the way the published file spells them: `str()` of a Python list."""
    return str(list(words))


class RawLine(BaseModel):
    """Structural shape of a line; path entries stay dicts until `parse_path_entry`."""

    model_config = ConfigDict(extra="forbid")

    id: StrictInt
    domain: StrictStr = NonEmptyStr
    perspective_theme: StrictStr
    perspective_target_question: StrictStr = NonEmptyStr
    perspective_valid_paths: list[dict[str, Any]] = Field(min_length=1)
    focused_evidence: list[StrictStr] = Field(min_length=1)
    valid_paths: list[dict[str, Any]] = Field(min_length=1)
    full_content_pool: dict[str, PoolEntry] = Field(min_length=1)


class BenchQuestion(BaseModel):
    """A validated question: parsed paths, targets as indexes into `valid_paths`."""

    id: int
    domain: str
    theme: str
    text: str
    valid_paths: list[PathEntry]
    target_pos: list[int]  # index into valid_paths, in perspective_valid_paths order
    focused_evidence: list[str]
    pool: dict[str, PoolEntry]  # pool key as written -> entry, file order
    raw_pool: dict[str, dict[str, Any]]  # the entries exactly as read (Topic Words unparsed)

    @property
    def hop(self) -> int:
        return max(self.valid_paths[i].path.hops for i in self.target_pos)

    @property
    def distractor_pos(self) -> list[int]:
        chosen = set(self.target_pos)
        return [i for i in range(len(self.valid_paths)) if i not in chosen]

    def concept_keys(self) -> dict[str, str]:
        """Pool key as written -> concept key."""
        return {k: base_key(k) for k in self.pool}

    def to_json(self) -> dict[str, Any]:
        """The line in the published field order."""
        return {
            "id": self.id,
            "domain": self.domain,
            "perspective_theme": self.theme,
            "perspective_target_question": self.text,
            "perspective_valid_paths": [self.valid_paths[i].to_json() for i in self.target_pos],
            "focused_evidence": list(self.focused_evidence),
            "valid_paths": [p.to_json() for p in self.valid_paths],
            "full_content_pool": {k: dict(v) for k, v in self.raw_pool.items()},
        }


def dump_line(obj: dict[str, Any]) -> str:
    """One JSONL line: UTF-8 text, the published field order and separators.

    The published file mixes `\\uXXXX` escapes and raw UTF-8 between lines, so the export is equal
    as parsed JSON, not byte for byte."""
    return json.dumps(obj, ensure_ascii=False)


__all__ = [
    "BenchQuestion",
    "ParsedPath",
    "PathEntry",
    "PoolEntry",
    "RawLine",
    "dump_line",
    "parse_path",
    "render_topic_words",
]
