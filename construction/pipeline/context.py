"""What every stage gets: the store, the config, the palette, the run, the model (or none), the
per-item resume state and a report to count into."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, field_serializer

from construction.pipeline.config import BuildConfig
from kg.ids import build_step_uid
from kg.palette import Palette

if TYPE_CHECKING:
    from construction.pipeline.chunks import Chunk
    from construction.pipeline.llm_route import BuildLLM
    from kg.store import Store

log = logging.getLogger("kg.build")

# Stages whose output (chunks, facts, vectors) every build generation of a domain shares; the
# later stages write concepts, edges, paths and questions of one generation (`--extend`).
SHARED_STAGES = ("chunks", "facts", "embeddings")


class StageReport(BaseModel):
    """What one stage did in this run: on the build result, the Run record and `kg build`'s
    stage table."""

    stage: str
    items: int = 0  # items this stage had to look at
    resumed: int = 0  # items already done by an earlier (killed or finished) run
    written: int = 0  # nodes/edges this run wrote
    rejected: int = 0  # model replies (or items) rejected by validation
    skipped: int = 0  # inputs that produced nothing (counted, never silent)
    seconds: float = 0.0
    # CPU time of this process (all threads) during the stage: on a shared machine the wall
    # time above is an upper bound, this is what the stage itself cost.
    cpu_seconds: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    @field_serializer("seconds", "cpu_seconds")
    def _ms(self, value: float) -> float:
        return round(value, 3)

    def note(self, text: str) -> None:
        log.info("%s: %s", self.stage, text)
        self.notes.append(text)

    def reject(self, why: str, n: int = 1) -> None:
        self.rejected += n
        key = f"rejected_{why}"
        self.counts[key] = self.counts.get(key, 0) + n


ProgressFactory = Callable[[str, int], Any]


class _NoProgress:
    def advance(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class BuildContext:
    store: Store
    config: BuildConfig
    palette: Palette | None
    run_uid: str
    llm: BuildLLM | None = None
    progress: ProgressFactory | None = None
    reports: dict[str, StageReport] = field(default_factory=dict)
    generation: int = 0  # the build generation this pass writes (`kg build --extend`)
    # The validated chunks of `--chunks` (stage chunks writes them) and their files' names.
    chunks: list[Chunk] = field(default_factory=list)
    chunk_source: str = ""

    @property
    def domain(self) -> str:
        return self.config.domain

    @property
    def model_name(self) -> str:
        return self.llm.model if self.llm else "offline"

    def provenance(
        self,
        stage: str,
        prompt_hash: str | None = None,
        source: str | None = None,
        model: str | None = None,
    ) -> str:
        """JSON provenance for every node/edge: run, stage, model, prompt hash. Never a key."""
        return json.dumps(
            {
                "run": self.run_uid,
                "stage": stage,
                "model": model or self.model_name,
                "prompt_hash": prompt_hash,
                "source": source,
            },
            sort_keys=True,
        )

    def earlier_links(self, kind: str) -> set[str]:
        """`--extend`: the edges (uids, kind RELATES) or candidate pairs ("a|b" keys, kind
        CANDIDATE) of the domain's earlier generations; a later generation, which reuses their
        concepts, never writes them again."""
        if not self.generation:
            return set()
        rows = self.store.query(
            "pipeline/earlier_links", domain=self.domain, generation=self.generation
        )
        return {
            r["uid"] if kind == "RELATES" else f"{r['a']}|{r['b']}"
            for r in rows
            if r["kind"] == kind
        }

    def generation_of(self, stage: str) -> int:
        return 0 if stage in SHARED_STAGES else self.generation

    # -- resume state ---------------------------------------------------------------------
    def done_items(self, stage: str) -> dict[str, str | None]:
        rows = self.store.query(
            "pipeline/state_done_items",
            domain=self.domain,
            stage=stage,
            generation=self.generation_of(stage),
        )
        return {r["item"]: r["input_hash"] for r in rows}

    def pending(
        self,
        stage: str,
        rep: StageReport,
        rows: list[dict[str, Any]],
        item: Callable[[dict[str, Any]], str] = lambda r: r["uid"],
    ) -> list[dict[str, Any]]:
        """The rows of `stage` not done yet; counts all and already-done rows on `rep`."""
        done = self.done_items(stage)
        todo = [r for r in rows if item(r) not in done]
        rep.items, rep.resumed = len(rows), len(rows) - len(todo)
        return todo

    def resumed_domain(self, stage: str, rep: StageReport, input_hash: str) -> bool:
        """A domain-level stage (one item): True, counted as resumed, when its done-marker
        holds this input hash (nothing it reads changed since)."""
        rep.items = 1
        if self.done_items(stage).get("domain") == input_hash:
            rep.resumed = 1
            return True
        return False

    def step_row(self, stage: str, item: str, input_hash: str | None = None) -> dict[str, Any]:
        generation = self.generation_of(stage)
        return {
            "uid": build_step_uid(self.domain, stage, item, generation),
            "domain": self.domain,
            "stage": stage,
            "item": item,
            "input_hash": input_hash,
            "run": self.run_uid,
            "generation": generation,
        }

    def mark_done(self, stage: str, items: Iterable[str], input_hash: str | None = None) -> None:
        rows = [self.step_row(stage, i, input_hash) for i in items]
        self.store.write_batches("pipeline/state_mark_done", rows)

    def write_items(
        self,
        stage: str,
        writes: list[tuple[str, dict[str, Any]]],
        items: Iterable[str],
        input_hash: str | None = None,
    ) -> None:
        """Named writes plus the items' done-markers in ONE transaction: a killed build either
        has an item's output and its marker, or neither."""
        steps = [self.step_row(stage, i, input_hash) for i in items]

        def work(tx: Any) -> None:
            for name, params in writes:
                self.store.tx_query(tx, name, **params)
            self.store.tx_query(tx, "pipeline/state_mark_done", rows=steps)

        self.store.transaction(work)

    def clear_state(self, stages: list[str]) -> None:
        for generation in sorted({self.generation_of(s) for s in stages}):
            self.store.query(
                "pipeline/state_clear",
                domain=self.domain,
                stages=[s for s in stages if self.generation_of(s) == generation],
                generation=generation,
            )

    # -- reporting ------------------------------------------------------------------------
    @contextmanager
    def stage(self, name: str) -> Iterator[StageReport]:
        report = StageReport(stage=name)
        self.reports[name] = report
        start = time.perf_counter()
        cpu = time.process_time()
        tokens = self.llm.tokens() if self.llm else (0, 0)
        try:
            yield report
        finally:
            report.seconds = time.perf_counter() - start
            report.cpu_seconds = time.process_time() - cpu
            if self.llm:
                now = self.llm.tokens()
                report.tokens_in += now[0] - tokens[0]
                report.tokens_out += now[1] - tokens[1]

    def bar(self, label: str, total: int) -> Any:
        return self.progress(label, total) if self.progress else _NoProgress()
