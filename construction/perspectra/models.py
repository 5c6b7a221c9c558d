"""Pydantic models of PERSPECTRA inputs (release file, Kialo-style topics, Reddit comments)
and of the rows written to the graph."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, ValidationError

from construction.perspectra.errors import Problem

Stance = Literal["pro", "con"]
STANCE_FIELDS: dict[str, Stance] = {"pros": "pro", "cons": "con"}


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("empty or whitespace-only string")
    return value


Text = Annotated[str, Field(strict=True), AfterValidator(_not_blank)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReleaseOpinion(_Strict):
    """One opinion of Perspectra.json: text, 5 matched comments (best first), 5 expansions."""

    opinion: Text
    top5_matches: list[Text] = Field(min_length=5, max_length=5)
    expanded: list[Text] = Field(min_length=5, max_length=5)


class ReleaseTopic(_Strict):
    topic: Text
    pros: list[ReleaseOpinion]
    cons: list[ReleaseOpinion]


class KialoTopic(_Strict):
    """Kialo-style topic: a claim with pro and con opinion strings."""

    topic: Text
    pros: list[Text]
    cons: list[Text]


class RedditComment(BaseModel):
    """A Reddit comment with the usual dump field names; other fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: Text
    author: str | None = None
    body: Text
    score: StrictInt = 0
    distinguished: str | None = None
    subreddit: str | None = None
    link_id: Text
    topic: Text | None = None  # the debate topic this comment was retrieved for


# -- rows written to the graph ---------------------------------------------------------------
class TopicRow(BaseModel):
    uid: str
    text: str
    source: str


class OpinionRow(BaseModel):
    uid: str
    topic_uid: str
    text: str
    stance: Stance
    source: str


class CommentRow(BaseModel):
    uid: str
    text: str
    author: str | None = None
    score: int | None = None
    distinguished: str | None = None
    subreddit: str | None = None
    thread: str | None = None
    reddit_id: str | None = None
    source: str


class MatchRow(BaseModel):
    opinion_uid: str
    comment_uid: str
    rank: int  # 1 = best match
    cosine: float | None = None
    model: str | None = None


class ExpansionRow(BaseModel):
    uid: str
    opinion_uid: str
    comment_uid: str | None  # STYLED_ON target: the comment at the same rank, as given
    rank: int
    text: str
    generator: str
    prompt_hash: str | None = None
    source: str


def validation_messages(err: ValidationError) -> list[tuple[str, str]]:
    """(field path like `pros[2].top5_matches`, message) for each pydantic error."""
    out = []
    for e in err.errors():
        path = ""
        for part in e["loc"]:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        out.append((path or "<record>", e["msg"]))
    return out


def topic_name(raw: Any) -> str | None:
    """The topic text of a raw record when there is one, for error messages."""
    if isinstance(raw, dict) and isinstance(raw.get("topic"), str):
        return raw["topic"][:80]
    return None


TopicT = TypeVar("TopicT", bound=BaseModel)


def validated_topics(
    records: Iterable[tuple[int, Any]], model: type[TopicT], problems: list[Problem]
) -> Iterator[tuple[int, TopicT]]:
    """Each (line, record) validated as `model` (which has a `topic` field); schema errors and
    repeated topics are appended to `problems` and the record is skipped."""
    seen: dict[str, int] = {}
    for line, raw in records:
        try:
            topic = model.model_validate(raw)
        except ValidationError as e:
            name = topic_name(raw)
            problems += [Problem.at(line, f, m, name) for f, m in validation_messages(e)]
            continue
        text: str = topic.topic  # type: ignore[attr-defined]
        if text in seen:
            problems.append(
                Problem.at(
                    line, "topic", f"duplicate topic (first at line {seen[text]})", text[:80]
                )
            )
            continue
        seen[text] = line
        yield line, topic
