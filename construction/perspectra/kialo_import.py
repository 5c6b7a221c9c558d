"""Kialo-style topics files: `{topic, pros: [str], cons: [str]}` as a JSON list or JSONL."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from construction.perspectra import uids
from construction.perspectra.errors import PerspectraInputError, Problem
from construction.perspectra.json_reading import records
from construction.perspectra.models import (
    STANCE_FIELDS,
    KialoTopic,
    OpinionRow,
    TopicRow,
    topic_name,
    validation_messages,
)
from construction.perspectra.rows import ImportRows, provenance


def kialo_rows(path: Path) -> ImportRows:
    problems: list[Problem] = []
    rows = ImportRows()
    prov = provenance("perspectra.import_kialo", path.name)
    seen: dict[str, int] = {}
    for line, raw in records(path):
        try:
            topic = KialoTopic.model_validate(raw)
        except ValidationError as e:
            name = topic_name(raw)
            problems += [Problem(line, f, m, name) for f, m in validation_messages(e)]
            continue
        if topic.topic in seen:
            problems.append(Problem(line, "topic", f"duplicate topic (first at line "
                                    f"{seen[topic.topic]})", topic.topic[:80]))
            continue
        seen[topic.topic] = line
        t_uid = uids.topic_uid(topic.topic)
        rows.topics.append(TopicRow(uid=t_uid, text=topic.topic, source=prov))
        first: dict[str, str] = {}
        for list_name, stance in STANCE_FIELDS.items():
            for i, text in enumerate(getattr(topic, list_name)):
                where = f"{list_name}[{i}]"
                if text in first:
                    problems.append(Problem(line, where, f"duplicate opinion (also "
                                            f"{first[text]})", topic.topic[:80]))
                    continue
                first[text] = where
                rows.opinions.append(OpinionRow(
                    uid=uids.opinion_uid(topic.topic, stance, text), topic_uid=t_uid,
                    text=text, stance=stance, source=prov,
                ))
    if problems:
        raise PerspectraInputError(path, problems)
    return rows
