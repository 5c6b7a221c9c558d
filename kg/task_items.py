"""TaskItem: one T1/T2/T3 item, what it was built from, and its gold answer; the spec of a
task set (the seeded items of one task).

Stored data keeps its names: a task set id is the `build` property of TaskItem and Run nodes
(the Python attribute is `task_set`, with `build` as its alias in and out).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kg.ids import content_uid, task_item_uid

TaskName = Literal["t1", "t2", "t3"]
TASKS: tuple[TaskName, ...] = ("t1", "t2", "t3")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class T1Config(BaseModel):
    """Opinion counting: k opinions of one topic, 1..per_opinion_max expansions of each."""

    k_min: int = Field(2, ge=1)
    k_max: int = Field(6, ge=1)
    per_opinion_min: int = Field(1, ge=1)
    per_opinion_max: int = Field(3, ge=1)
    separator: str = "\n\n"


class T2Config(BaseModel):
    """Opinion matching: the gold opinion plus distractors of the same topic, both sides."""

    options: int = Field(4, ge=2, le=len(LETTERS))


class T3Config(BaseModel):
    """Polarity: one expansion, or a bundle of `bundle` expansions from one side."""

    bundle: int = Field(1, ge=1)
    separator: str = "\n\n"


class TaskSetSpec(BaseModel):
    """What identifies a task set: the same spec on the same corpus gives the same items."""

    task: TaskName
    n: int = Field(500, ge=1)
    seed: int = 13
    t1: T1Config = T1Config()
    t2: T2Config = T2Config()
    t3: T3Config = T3Config()

    def config(self) -> BaseModel:
        return {"t1": self.t1, "t2": self.t2, "t3": self.t3}[self.task]

    def task_set_id(self, corpus_fingerprint: str) -> str:
        """Same spec on the same corpus -> same id -> same item uids (idempotent rebuilds)."""
        cfg = content_uid(self.config().model_dump())[:8]
        return f"{self.task}-s{self.seed}-n{self.n}-{cfg}-{corpus_fingerprint[:8]}"


class TaskItem(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    uid: str
    task: TaskName
    task_set: str = Field(alias="build")
    index: int
    seed: int
    topic_uid: str
    topic: str
    text: str  # what the model reads (expansions joined by the separator)
    expansion_uids: list[str]  # INCLUDES {pos} order
    expansion_opinions: list[str]  # the opinion uid of each included expansion
    opinion_uids: list[str]  # t1: the k opinions; t2: the gold opinion; t3: bundle opinions
    gold: str  # t1: the count as digits; t2: the letter; t3: 'pro' | 'con'
    gold_stance: str | None = None
    options: list[str] = []  # t2: option texts in letter order
    option_uids: list[str] = []
    option_stances: list[str] = []

    @staticmethod
    def make_uid(task_set: str, index: int) -> str:
        return task_item_uid(task_set, index)

    def graph_props(self) -> dict[str, object]:
        return self.model_dump(exclude={"uid"}, by_alias=True)
