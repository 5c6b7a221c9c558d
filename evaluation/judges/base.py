"""What every judge offers, and the mapping of judge replies onto a question's paths."""

from __future__ import annotations

import random
from typing import Protocol

from evaluation.models import EvalPath, EvalQuestion, Fact, JudgeResult


class Judge(Protocol):
    name: str
    offline: bool

    def prompt_names(self) -> list[str]: ...

    async def judge(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult: ...


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
