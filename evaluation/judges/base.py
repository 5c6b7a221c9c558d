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


def shuffled_paths(q: EvalQuestion, seed: int) -> list[tuple[str, EvalPath]]:
    """Paths under neutral ids P1..Pn in a seeded random order (no sign of target/distractor)."""
    order = list(q.paths)
    random.Random(f"{seed}:{q.uid}").shuffle(order)
    return [(f"P{i + 1}", p) for i, p in enumerate(order)]
