"""Kialo-style topics files: `{topic, pros: [str], cons: [str]}` as a JSON list or JSONL."""

from __future__ import annotations

from pathlib import Path

from construction.perspectra.errors import PerspectraInputError, Problem
from construction.perspectra.json_reading import records
from construction.perspectra.models import (
    STANCE_FIELDS,
    KialoTopic,
    OpinionRow,
    TopicRow,
    validated_topics,
)
from construction.perspectra.rows import ImportRows, provenance
from kg import ids


def kialo_rows(path: Path) -> ImportRows:
    problems: list[Problem] = []
    rows = ImportRows()
    prov = provenance("perspectra.import_kialo", path.name)
    for line, topic in validated_topics(records(path), KialoTopic, problems):
        t_uid = ids.topic_uid(topic.topic)
        rows.topics.append(TopicRow(uid=t_uid, text=topic.topic, source=prov))
        first: dict[str, str] = {}
        for list_name, stance in STANCE_FIELDS.items():
            for i, text in enumerate(getattr(topic, list_name)):
                where = f"{list_name}[{i}]"
                if text in first:
                    problems.append(
                        Problem.at(
                            line, where, f"duplicate opinion (also {first[text]})", topic.topic[:80]
                        )
                    )
                    continue
                first[text] = where
                rows.opinions.append(
                    OpinionRow(
                        uid=ids.opinion_uid(topic.topic, stance, text),
                        topic_uid=t_uid,
                        text=text,
                        stance=stance,
                        source=prov,
                    )
                )
    if problems:
        raise PerspectraInputError(path, problems)
    return rows
