"""Validate the PERSPECTRA release file (Perspectra.json) and turn it into graph rows.

Every problem is collected (file, line of the topic, topic, field) before anything is written.
Expansion i is recorded as STYLED_ON comment i because that is the order the release gives;
nothing more is claimed about the pairing.
"""

from __future__ import annotations

from pathlib import Path

from construction.perspectra.errors import PerspectraInputError, Problem
from construction.perspectra.json_reading import json_list_records
from construction.perspectra.models import (
    STANCE_FIELDS,
    CommentRow,
    ExpansionRow,
    MatchRow,
    OpinionRow,
    ReleaseTopic,
    TopicRow,
    validated_topics,
)
from construction.perspectra.rows import ImportRows, provenance
from kg import ids

RELEASE_GENERATOR = "perspectra-release"


def validate_release(path: Path) -> list[tuple[int, ReleaseTopic]]:
    problems: list[Problem] = []
    topics: list[tuple[int, ReleaseTopic]] = []
    for line, topic in validated_topics(json_list_records(path), ReleaseTopic, problems):
        problems += _within_topic(line, topic)
        topics.append((line, topic))
    if problems:
        raise PerspectraInputError(path, problems)
    return topics


def _within_topic(line: int, topic: ReleaseTopic) -> list[Problem]:
    out = []
    first: dict[str, str] = {}
    for list_name in STANCE_FIELDS:
        for i, op in enumerate(getattr(topic, list_name)):
            where = f"{list_name}[{i}]"
            if op.opinion in first:
                out.append(
                    Problem.at(
                        line,
                        f"{where}.opinion",
                        f"duplicate opinion (also {first[op.opinion]})",
                        topic.topic,
                    )
                )
            first.setdefault(op.opinion, where)
            if len(set(op.expanded)) != len(op.expanded):
                out.append(
                    Problem.at(line, f"{where}.expanded", "duplicate expansion text", topic.topic)
                )
    return out


def release_rows(path: Path) -> ImportRows:
    rows = ImportRows()
    src = path.name
    prov = provenance("perspectra.import", src)
    comments: dict[str, CommentRow] = {}
    for _, topic in validate_release(path):
        t_uid = ids.topic_uid(topic.topic)
        rows.topics.append(TopicRow(uid=t_uid, text=topic.topic, source=prov))
        for list_name, stance in STANCE_FIELDS.items():
            for op in getattr(topic, list_name):
                o_uid = ids.opinion_uid(topic.topic, stance, op.opinion)
                rows.opinions.append(
                    OpinionRow(
                        uid=o_uid, topic_uid=t_uid, text=op.opinion, stance=stance, source=prov
                    )
                )
                for rank, (comment, expansion) in enumerate(
                    zip(op.top5_matches, op.expanded, strict=True), start=1
                ):
                    c_uid = ids.comment_uid(comment)
                    comments.setdefault(c_uid, CommentRow(uid=c_uid, text=comment, source=prov))
                    rows.matches.append(MatchRow(opinion_uid=o_uid, comment_uid=c_uid, rank=rank))
                    rows.expansions.append(
                        ExpansionRow(
                            uid=ids.expansion_uid(o_uid, expansion),
                            opinion_uid=o_uid,
                            comment_uid=c_uid,
                            rank=rank,
                            text=expansion,
                            generator=RELEASE_GENERATOR,
                            source=prov,
                        )
                    )
    rows.comments = list(comments.values())
    return rows
