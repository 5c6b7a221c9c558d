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
import html
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from evaluation.labeling.task import TaskItem
from evaluation.reporting.html_report import _sha256, embed_json

_PLACEHOLDER = re.compile(r"\{\{(TITLE|CSS|JS|DATA|CSP)\}\}")


def _template(name: str) -> str:
    return (resources.files("evaluation.labeling") / "html_template" / name).read_text(
        encoding="utf-8"
    )


def render_annotation_page(items: Sequence[TaskItem], title: str, source: str) -> str:
    css, js = _template("annotate.css"), _template("annotate.js")
    csp = (
        f"default-src 'none'; script-src 'sha256-{_sha256(js)}'; "
        f"style-src 'sha256-{_sha256(css)}'; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )
    data = {
        "source": source,
        # labels in progress are kept per task content (a new task starts empty)
        "key": "kg-labels-"
        + hashlib.sha256("".join(i.model_dump_json() for i in items).encode()).hexdigest()[:16],
        "items": [i.model_dump() for i in items],
    }
    values = {
        "TITLE": html.escape(title),
        "CSS": css,
        "JS": js,
        "DATA": embed_json(data),
        "CSP": html.escape(csp, quote=False),
    }
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _template("annotate.html"))


def write_annotation_page(items: Sequence[TaskItem], out: Path, source: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    title = f"Label paths: {Path(source).name} ({len(items)} answers)"
    out.write_text(render_annotation_page(items, title, source), encoding="utf-8")
    return out
