"""The build stage interface: one `Stage` class per stage module, with an offline and an LLM
implementation, and `load_stage` over the one stage table (`construction.pipeline.STAGE_TABLE`).

The runner picks each stage's implementation once, when the build starts (`implementation`): the
offline one without a builder model, the LLM one with it. No stage asks which route it is on."""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from construction.pipeline.llm_route import RejectedReply
from kg.llm.batch import BatchPending

if TYPE_CHECKING:
    from construction.pipeline.context import BuildContext, StageReport
    from construction.pipeline.llm_route import BuildLLM

T = TypeVar("T")
StageRun = Callable[["BuildContext"], "StageReport"]


class Stage(ABC):
    """One build stage. A subclass names itself, what it reads and how it resumes, and
    implements `offline`; a stage that asks a model per item also sets `prompt` and implements
    `llm`. A stage without a model step (embeddings, clusters, pairs) keeps the default `llm`,
    which is its offline implementation."""

    name: ClassVar[str]
    # The stages whose output this one reads (each comes earlier in the table).
    inputs: ClassVar[tuple[str, ...]] = ()
    # What one done-marker of this stage stands for: an item ("chunk", "concept", ...) a rerun
    # skips, or "domain" (one marker holding the hash of every input: unchanged input resumes).
    resume_key: ClassVar[str] = "domain"
    # Named queries `kg build --from-stage` runs before running this stage again.
    reset: ClassVar[tuple[str, ...]] = ()
    # The LLM implementation's prompt (`prompts/pipeline/<prompt>.md`); its hash is recorded
    # on the Run, and the stage's items left undone by rejected replies stop the build.
    prompt: ClassVar[str | None] = None
    # A stage with one item (the domain): the runner draws its one-step progress bar.
    domain_level: ClassVar[bool] = False

    @abstractmethod
    def offline(self, ctx: BuildContext) -> StageReport:
        """The heuristics and the local embedding model: no model calls."""

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        """The builder model's route; by default the offline one (no model step)."""
        return self.offline(ctx)

    def pending_items(self, ctx: BuildContext, rep: StageReport) -> list[dict[str, Any]]:
        """The items the LLM implementation asks the model about in this run, one call each
        (read-only: `kg build --plan` renders their prompts)."""
        raise TypeError(f"stage {self.name} asks no model: it has no items to ask about")

    def slots(self, ctx: BuildContext, item: dict[str, Any]) -> dict[str, object]:
        """The slots of `prompt` for one item: what the LLM implementation sends for it."""
        raise TypeError(f"stage {self.name} asks no model: it has no prompt slots")

    def planned_prompts(self, ctx: BuildContext, items: list[dict[str, Any]]) -> list[str]:
        """The text of every message the LLM implementation would send for `items`."""
        from construction.pipeline.llm_route import BuildLLM

        if self.prompt is None:
            raise TypeError(f"stage {self.name} asks no model: it has no prompt")
        return [
            "\n".join(m["content"] for m in BuildLLM.messages(self.prompt, **self.slots(ctx, i)))
            for i in items
        ]

    def up_to_date(self, ctx: BuildContext) -> bool:
        """Whether the graph holds what this stage would write if it ran now on unchanged input
        (`kg build --plan` counts the later stages' items exactly only then): by default, the
        stage has run on the domain (its done markers)."""
        return bool(ctx.done_items(self.name))

    def wanted(self, ctx: BuildContext) -> bool:
        """Whether this build has anything for the stage to do (the chunks stage without
        `--chunks` has not)."""
        return True

    def implementation(self, model: BuildLLM | None) -> StageRun:
        """Chosen once per build: the LLM implementation when there is a builder model."""
        if model is None:
            return self.offline
        return functools.partial(self.llm, model=model)

    def model_provenance(self, ctx: BuildContext, model: BuildLLM) -> str:
        """The provenance of what the LLM implementation writes: run, stage, model, and the
        hash of the stage's prompt."""
        if self.prompt is None:
            raise TypeError(f"stage {self.name} asks no model: it has no prompt")
        return ctx.provenance(self.name, prompt_hash=model.prompt_hash(self.prompt))

    def each_item(
        self,
        ctx: BuildContext,
        rep: StageReport,
        model: BuildLLM,
        items: list[T],
        work: Callable[[T], Awaitable[None]],
    ) -> None:
        """Run `work` over `items` with the model, each item writing its own result (a killed
        build keeps what finished). A rejected reply is counted on `rep` and its item left
        undone, for a rerun to retry; the bar advances either way.

        `--batch` (`model.batches`): in rounds. An item whose request no finished batch
        answers waits; the round's requests go out as provider batches, and the next round
        runs the waiting items again, answered from them (docs/batch.md)."""
        bar = ctx.bar(self.name, len(items))
        waiting: list[T] = []

        async def one(item: T) -> None:
            try:
                await work(item)
            except RejectedReply as exc:
                rep.reject(exc.reason)
            except BatchPending:  # its request goes out in this round's batch
                waiting.append(item)
                return
            bar.advance()

        todo = items
        while todo:
            model.map(todo, one)
            todo, waiting[:] = list(waiting), []
            if todo and model.batches is not None and model.batches.collected():
                model.batches.submit()
                model.batches.settle()
            elif todo:  # nothing to send that could answer them (cannot happen): said
                rep.reject("batch_pending", len(todo))
                break
        bar.close()


def load_stage(name: str, table: dict[str, str] | None = None) -> Stage:
    """The stage registered under `name` in the stage table (`module:Class`), imported on
    first use: `kg --help` does not load the stages' numerical libraries."""
    from construction.pipeline import STAGE_TABLE

    module, _, cls = (table or STAGE_TABLE)[name].partition(":")
    stage = getattr(import_module(module), cls)()
    if not isinstance(stage, Stage) or stage.name != name:
        raise TypeError(f"stage table entry {name!r} -> {module}:{cls} is not Stage {name!r}")
    return stage
