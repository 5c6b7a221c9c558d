"""The annotation page: one self-contained HTML file (no network, no server) to label a task.

The page shows each answer blind (no judge verdict): the question, the answer, the concepts'
summaries and, per path, its edges with their stored reasons; the annotator marks each path
present or absent (and, to help, each edge), by clicking or with keys, and saves the labels as
a gold JSONL file in the format `kg judge validate` reads. Like the report, the data is one
JSON block rendered with textContent only, under a CSP that allows only the page's own script
and style (by hash); labels in progress are kept in the browser's localStorage.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from evaluation.labeling.task import TaskItem
from evaluation.reporting.html_report import render_page


def render_annotation_page(items: Sequence[TaskItem], title: str, source: str) -> str:
    data = {
        "source": source,
        # labels in progress are kept per task content (a new task starts empty)
        "key": "kg-labels-"
        + hashlib.sha256("".join(i.model_dump_json() for i in items).encode()).hexdigest()[:16],
        "items": [i.model_dump() for i in items],
    }
    return render_page("evaluation.labeling", "annotate", data, title)


def write_annotation_page(items: Sequence[TaskItem], out: Path, source: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    title = f"Label paths: {Path(source).name} ({len(items)} answers)"
    out.write_text(render_annotation_page(items, title, source), encoding="utf-8")
    return out
