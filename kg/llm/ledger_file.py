"""A run's token ledger written to a local file, for when the graph cannot take it (Neo4j
lost mid-run): every request actually sent is accounted for somewhere."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kg.safe_paths import private_dir, private_file, safe_file
from kg.settings import get_settings

if TYPE_CHECKING:
    from kg.llm.client import LLMClient


def write(run_id: str, clients: Sequence[LLMClient], folder: Path | None = None) -> Path:
    """Append one JSON line per call record to `<cache dir>/ledgers/<run id>.jsonl`."""
    folder = folder or get_settings().cache_dir / "ledgers"
    private_dir(folder)  # the ledger names prompts and models: its owner's only
    path = private_file(safe_file(folder, run_id, ".jsonl"))
    with path.open("a", encoding="utf-8") as fh:
        for c in clients:
            for rec in c.ledger.records:
                fh.write(json.dumps({"run": run_id, **rec.model_dump()}) + "\n")
    return path
