"""Strict parsing of PerspectiveBench path strings and the reason keys that go with them.

A path string is `key -- LABEL --> key [-- LABEL --> key]...` with 1 to 3 edges, single spaces
around the arrows. Keys and labels are identifiers (a letter, then letters, digits, underscores),
so nothing read from a file can ever change the shape of a Cypher query.
"""

from __future__ import annotations

import re

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, computed_field

from kg.errors import InputError

IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MAX_HOPS = 3
# The published file marks a missing relation with the label `None`: imported, but reported.
MISSING_LABEL = "None"
_POOL_SUFFIX = re.compile(r"_(source|target)$")
_TOPIC_NUMBER = re.compile(r"^topic_(\d+)$")
_EDGE = re.compile(r" -- (.*?) --> ")


class PathSyntaxError(InputError):
    """A path string that is not `key -- LABEL --> key` with 1-3 edges."""


class ReasoningPath(BaseModel):
    """The one path type: concept keys in order and one relation label per hop (1-3 hops).

    Each place that holds paths uses a view of it that adds what its role needs: `ParsedPath`
    (a path string read from a file), `GraphPath` (RELATES edges in the graph),
    `QuestionPath` (a question's target or distractor) and `EvalPath` (a path an answer is
    judged against). Stored Path nodes call the keys `concept_keys`; both names are read.
    """

    keys: list[str] = Field(validation_alias=AliasChoices("keys", "concept_keys"))
    labels: list[str]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def hops(self) -> int:
        return len(self.labels)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def signature(self) -> str:
        return format_signature(self.keys, self.labels)

    def edges(self) -> list[tuple[str, str, str]]:
        """(from key, label, to key) per hop."""
        return [(self.keys[i], lab, self.keys[i + 1]) for i, lab in enumerate(self.labels)]

    def reason_keys(self) -> list[str]:
        """The reason field names a path entry must carry, in hop order."""
        return reason_keys(self.keys)


class ParsedPath(ReasoningPath):
    """A path string parsed from a file: immutable, so it is hashable and comparable as a value."""

    model_config = ConfigDict(frozen=True)

    keys: tuple[str, ...] = Field(validation_alias=AliasChoices("keys", "concept_keys"))  # type: ignore[assignment]
    labels: tuple[str, ...]  # type: ignore[assignment]


def format_signature(keys: tuple[str, ...] | list[str], labels: tuple[str, ...] | list[str]) -> str:
    parts = [keys[0]]
    for label, key in zip(labels, keys[1:], strict=True):
        parts.append(f" -- {label} --> {key}")
    return "".join(parts)


def parse_path(text: str, max_hops: int = MAX_HOPS) -> ParsedPath:
    """Parse `topic_3 -- CAUSES --> topic_13`; raise PathSyntaxError saying what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise PathSyntaxError("empty path string")
    if "-->" not in text:
        raise PathSyntaxError(
            f"bad path syntax {text!r}: expected 'key -- LABEL --> key' (no '-->' arrow found)"
        )
    pieces = _EDGE.split(text)
    # split() with one group gives key, label, key, label, ..., key
    keys, labels = pieces[0::2], pieces[1::2]
    if any("-->" in k or " -- " in k or k != k.strip() for k in keys):
        raise PathSyntaxError(
            f"bad path syntax {text!r}: expected 'key -- LABEL --> key' with single spaces "
            "around '--' and '-->'"
        )
    for label in labels:
        if not label.strip():
            raise PathSyntaxError(f"empty relation label in {text!r}")
        if not IDENT.match(label):
            raise PathSyntaxError(
                f"invalid relation label {label!r} in {text!r}: letters, digits and underscores "
                "only, starting with a letter"
            )
    for key in keys:
        if not IDENT.match(key):
            raise PathSyntaxError(
                f"invalid concept key {key!r} in {text!r}: letters, digits and underscores only, "
                "starting with a letter"
            )
    if len(labels) > max_hops:
        raise PathSyntaxError(f"path {text!r} has {len(labels)} hops; at most {max_hops} allowed")
    if len(set(keys)) != len(keys):
        raise PathSyntaxError(f"path {text!r} visits a concept twice; paths must be simple")
    return ParsedPath(keys=tuple(keys), labels=tuple(labels))


def base_key(pool_key: str) -> str:
    """`topic_3_source` and `topic_3_target` name the concept `topic_3`."""
    return _POOL_SUFFIX.sub("", pool_key)


def short_key(key: str) -> str:
    """`topic_17` -> `17` (the published reason keys use the topic number); other keys as is."""
    m = _TOPIC_NUMBER.match(key)
    return m.group(1) if m else key


def reason_keys(keys: tuple[str, ...] | list[str]) -> list[str]:
    """`reason` for one hop, else `<from>_reason_<to>` per hop (e.g. `17_reason_2`)."""
    if len(keys) == 2:
        return ["reason"]
    return [f"{short_key(a)}_reason_{short_key(b)}" for a, b in zip(keys, keys[1:], strict=False)]
