"""Problems (kg.jsonl.Problem: file:line:field: message) and the import report."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kg.errors import InputError
from kg.jsonl import Problem

MAX_LISTED = 50


def format_problems(problems: list[Problem], limit: int = MAX_LISTED) -> str:
    lines = [str(p) for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"... and {len(problems) - limit} more")
    return "\n".join(lines)


class ImportValidationError(InputError):
    """Bad input lines: nothing was written. `problems` lists every one (file:line:field)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__(
            f"{len(problems)} problem(s) in the input; nothing was written:\n"
            + format_problems(problems)
        )


class ImportReport(BaseModel):
    """What an import read, wrote, skipped and warned about."""

    files: list[str] = Field(default_factory=list)
    lines_read: int = 0
    blank_lines: int = 0
    questions_valid: int = 0
    questions_written: int = 0
    duplicates_skipped: int = 0  # identical repeated lines
    invalid_skipped: int = 0  # lines rejected under --skip-invalid
    rejects_path: str | None = None
    # distinct things written by this import
    domains: int = 0
    concepts: int = 0
    facts: int = 0
    edges: int = 0
    paths: int = 0
    # focused evidence in no pool entry (accepted; hangs on its Question by EVIDENCE only)
    evidence_outside_pool: int = 0
    questions_with_outside_evidence: int = 0
    # node counts before/after (a second identical import changes none)
    nodes_before: dict[str, int] = Field(default_factory=dict)
    nodes_after: dict[str, int] = Field(default_factory=dict)
    warnings: list[Problem] = Field(default_factory=list)
    errors: list[Problem] = Field(default_factory=list)
    seconds: float = 0.0

    # nodes this import's transaction created, per label (its own write counters: a
    # concurrent import's nodes are not claimed)
    nodes_created: dict[str, int] = Field(default_factory=dict)
