"""Import PerspectiveBench JSONL files into the graph: validate everything, then write everything
in one transaction (batched `UNWIND ... MERGE`), so bad input or a failed write leaves the
database as it was. Importing the same files again changes no count.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from neo4j import ManagedTransaction

from construction.perspectivebench.plan import (
    ImportPlan,
    build_plan,
    planned_uids,
    render_pool_entry,
)
from construction.perspectivebench.report import ImportReport, ImportValidationError, Problem
from construction.perspectivebench.validation import (
    DEFAULT_MAX_LINE_BYTES,
    LineRef,
    validate_files,
)
from kg import cypher_files, leases
from kg.store import Store, chunked

# (query, plan field) in write order: nodes first, then the links that MATCH them.
_WRITES = [
    ("bench/import_domains", "domains"),
    ("bench/import_concepts", "concepts"),
    ("bench/import_facts", "facts"),
    ("bench/import_key_evidence", "key_evidence"),
    ("bench/import_edges", "edges"),
    ("bench/import_paths", "paths"),
    ("bench/import_questions", "questions"),
    ("bench/import_targets", "targets"),
    ("bench/import_distractors", "distractors"),
    ("bench/import_evidence", "evidence"),
    ("bench/import_pool", "pool"),
]


def read_existing(
    tx: ManagedTransaction, concept_uids: list[str], path_uids: list[str]
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """What the graph already holds for these concepts (as pool entries) and paths (reasons)."""
    concepts = {
        r["uid"]: render_pool_entry(r["summary"], r["topic_words"], r["key_evidence"])
        for r in Store.tx_query(tx, "bench/concept_entries", uids=concept_uids)
    }
    rows = Store.tx_query(tx, "bench/path_entries", uids=path_uids)
    paths = {r["uid"]: r["reasons"] for r in rows}
    return concepts, paths


# The one label of the nodes each write may create (the others create relationships only).
_CREATES = {
    "bench/import_domains": "Domain",
    "bench/import_concepts": "Concept",
    "bench/import_facts": "Fact",
    "bench/import_paths": "Path",
    "bench/import_questions": "Question",
}


def write_plan(tx: ManagedTransaction, plan: ImportPlan, batch_size: int = 1000) -> dict[str, int]:
    """Every write of a plan inside the caller's transaction; returns the nodes this
    transaction created per label (its own counters: a concurrent import's nodes, which
    before/after counts of the graph would include, are not counted)."""
    Store.tx_query(tx, "bench/import_clear_links", uids=[q["uid"] for q in plan.questions])
    created: dict[str, int] = {}
    for name, attr in _WRITES:
        for batch in chunked(getattr(plan, attr), batch_size):
            n = tx.run(cypher_files.load(name), {"rows": batch}).consume().counters.nodes_created
            if n:
                label = _CREATES.get(name, "other")
                created[label] = created.get(label, 0) + n
    return created


def plan_in_tx(
    tx: ManagedTransaction,
    questions: list[tuple[LineRef, Any]],
    *,
    source: str,
    palette: dict[str, str] | None,
    domain_palettes: dict[str, dict[str, str]] | None = None,
) -> ImportPlan:
    """Read what the graph holds for the touched concepts/paths and build the rows."""
    concept_uids, path_uids = planned_uids(questions)
    existing_concepts, existing_paths = read_existing(tx, concept_uids, path_uids)
    return build_plan(
        questions,
        existing_concepts=existing_concepts,
        existing_paths=existing_paths,
        source=source,
        palette=palette,
        domain_palettes=domain_palettes,
    )


def _write_rejects(path: Path, rejected: list[tuple[LineRef, list[Problem]]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for ref, problems in rejected:
            fh.write(
                json.dumps(
                    {
                        "file": ref.file,
                        "line": ref.line,
                        "errors": [str(p) for p in problems],
                        "text": ref.text,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


def import_perspectivebench(
    store: Store,
    files: list[Path],
    *,
    skip_invalid: bool = False,
    rejects_path: Path | None = None,
    palette: dict[str, str] | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    batch_size: int | None = None,
    domain_palettes: dict[str, dict[str, str]] | None = None,
) -> ImportReport:
    """Import PerspectiveBench JSONL files into the graph (docs/graph-model.md).

    Every line is validated first. With bad lines and `skip_invalid=False` this raises
    `ImportValidationError` (its `.problems` list every error as file:line:field: message) and
    writes nothing. With `skip_invalid=True` the good lines are imported, the bad ones are
    written with their reasons to `rejects_path` (JSONL) when given, and counted in the report.
    `palette` (label -> category, every domain) and `domain_palettes` (domain -> label ->
    category, taking precedence) set `RELATES.category`. All writes run in one transaction.
    """
    started = time.perf_counter()
    files = [Path(f) for f in files]
    result = validate_files(files, max_line_bytes=max_line_bytes)
    report = ImportReport(
        files=[str(f) for f in files],
        lines_read=result.lines_read,
        blank_lines=result.blank_lines,
        questions_valid=len(result.questions),
        duplicates_skipped=result.duplicates,
        warnings=list(result.warnings),
        errors=list(result.errors),
    )
    if result.errors and not skip_invalid:
        raise ImportValidationError(result.errors)
    report.invalid_skipped = len(result.rejected)
    if result.rejected and rejects_path is not None:
        _write_rejects(Path(rejects_path), result.rejected)
        report.rejects_path = str(rejects_path)
    report.nodes_before = store.node_counts()
    if result.questions:
        source = "perspectivebench:" + ",".join(f.name for f in files)
        sources = [f"{f.name} sha256:{hashlib.sha256(f.read_bytes()).hexdigest()}" for f in files]

        created: dict[str, int] = {}

        def work(tx: ManagedTransaction) -> ImportPlan:
            plan = plan_in_tx(
                tx,
                result.questions,
                source=source,
                palette=palette,
                domain_palettes=domain_palettes,
            )
            created.clear()  # a retried transaction counts again
            created.update(write_plan(tx, plan, batch_size or store.settings.batch_size))
            Store.tx_query(
                tx,
                "core/domain_mark",
                names=[d["name"] for d in plan.domains],
                imported=True,
                built=False,
                sources=sources,  # the domain's origin: each file with its sha256
            )  # builds into it must ask first
            return plan

        # The write lease of every domain written (one lease, one heartbeat): refused while a
        # live run reads one of them (the import rewrites its questions' links) or a build
        # writes it.
        domains = sorted({q.domain for _, q in result.questions})
        keys = [f"build:{d}" for d in domains]
        with leases.hold(store, keys, f"import:{source}", "import"):
            plan = store.transaction(work)
        report.nodes_created = dict(sorted(created.items()))
        report.warnings.extend(plan.warnings)
        report.questions_written = len(plan.questions)
        report.domains, report.concepts = len(plan.domains), len(plan.concepts)
        report.facts, report.edges, report.paths = len(plan.facts), len(plan.edges), len(plan.paths)
        report.evidence_outside_pool = plan.evidence_outside_pool
        report.questions_with_outside_evidence = plan.questions_with_outside_evidence
    report.nodes_after = store.node_counts()
    report.seconds = round(time.perf_counter() - started, 3)
    return report
