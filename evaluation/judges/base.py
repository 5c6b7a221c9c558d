"""What every judge offers, and the mapping of judge replies onto a question's paths."""

from __future__ import annotations

import asyncio
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from evaluation.models import EvalPath, EvalQuestion, Fact, JudgeResult

# One answer to judge: its question, its text and the faithfulness ground truth.
BatchItem = tuple[EvalQuestion, str, list[Fact]]


class Judge(ABC):
    """What every judge offers. Judges are made by name through `evaluation.judges.registry`
    (the runner, `kg judge validate` and the run spec all ask it)."""

    name: str
    offline: ClassVar[bool] = True  # judges without a model endpoint
    # `judge_batch` does better than one `judge` per answer (one encoder call for all): the
    # runner then gathers answers and judges them together in a worker thread
    batches: ClassVar[bool] = False
    # the judge reads the graph before judging (`learn`): the edge-evidence judge fits its
    # relation reader on every stored edge reason
    learns: ClassVar[bool] = False

    def learn(self, questions: Iterable[EvalQuestion]) -> object:
        """Read what the judge needs from the graph's questions (all of them, so a verdict
        does not depend on which questions a run selects). Nothing by default."""
        return None

    def prompt_names(self) -> list[str]:
        """Prompt files the judge sends (their hashes are part of a run's identity)."""
        return []

    def planned_requests(
        self, q: EvalQuestion, answer: str, gt: list[Fact]
    ) -> dict[str, list[str]]:
        """The prompts `judge` would send a model for this answer, by role (`kg eval plan`
        counts and sizes them); an offline judge sends none."""
        return {}

    @abstractmethod
    async def judge(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult: ...

    def judge_batch(self, items: list[BatchItem]) -> list[JudgeResult]:
        """Many answers at once, called in a worker thread. This default judges them one by
        one on a loop of its own; a judge that can do better overrides it and sets `batches`."""

        async def each() -> list[JudgeResult]:
            return [await self.judge(q, answer, gt) for q, answer, gt in items]

        return asyncio.run(each())

    async def aclose(self) -> None:
        """Release what the judge holds on the running loop (an LLM judge's HTTP pool)."""
        return None  # an offline judge holds nothing


def shuffled_paths(q: EvalQuestion, seed: int, vote: int = 0) -> list[tuple[str, EvalPath]]:
    """Paths under neutral ids P1..Pn in a seeded random order (no sign of target/distractor).

    The order is a function of (seed, question, vote): reproducible, the same for every answer
    to a question (two runs compared answer by answer meet the same checklist), and different
    for each vote of a voting judge, so a position bias of the model does not repeat across
    its votes. Vote 0 is the order an unvoted judge sees."""
    order = list(q.paths)
    key = f"{seed}:{q.uid}" if vote == 0 else f"{seed}:{q.uid}:vote{vote}"
    random.Random(key).shuffle(order)
    return [(f"P{i + 1}", p) for i, p in enumerate(order)]
