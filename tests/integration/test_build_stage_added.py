"""docs/build.md "Adding a build stage", run as written: a stage registered by one entry in the
stage table is run by `build_domain` after the chunks, reads the graph, and is recorded on the
Run and in the result like every stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.pipeline import STAGE_TABLE
from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.runner import BuildPlan, build_domain
from construction.pipeline.stage import Stage
from kg.runs import RunStatus, read_run

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parents[2] / "demo" / "build"


class ChunkWords(Stage):
    """Counts the words of the domain's chunks (writes nothing)."""

    name = "chunk_words"
    inputs = ("chunks",)  # stages it reads; each comes earlier in the table

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(self.name) as rep:  # times it, counts tokens, keeps the report
            chunks = ctx.store.query("pipeline/chunks_of_domain", domain=ctx.domain)
            rep.items = len(chunks)
            rep.counts["words"] = sum(len(c["text"].split()) for c in chunks)
            return rep


def test_a_stage_added_to_the_table_runs_in_the_build(store, monkeypatch):
    monkeypatch.setitem(STAGE_TABLE, "chunk_words", f"{__name__}:ChunkWords")
    plan = BuildPlan(
        config=BuildConfig(domain="words"),
        chunk_paths=[DEMO / "chunks.json"],
        only=["chunks", "chunk_words"],
    )
    result = build_domain(store, plan)
    assert result.status is RunStatus.done
    assert [s.stage for s in result.stages] == ["chunks", "chunk_words"]
    texts = [c["text"] for c in json.loads((DEMO / "chunks.json").read_text())]
    words = result.stages[1]
    assert words.items == len(texts) == result.summary["chunks"]
    assert words.counts == {"words": sum(len(t.split()) for t in texts)}
    run = read_run(store, result.run)
    assert run is not None and run["status"] == "done"
    assert run["stages"] == ["chunks", "chunk_words"]
    # The Run stores the same reports the result carries (times rounded to the millisecond).
    stored = [StageReport.model_validate(s) for s in run["summary"]["stages"]]
    assert [s.model_dump(exclude={"seconds", "cpu_seconds"}) for s in stored] == [
        s.model_dump(exclude={"seconds", "cpu_seconds"}) for s in result.stages
    ]
