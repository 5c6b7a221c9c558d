"""Parse replies to task items and score them: the one path for model and baseline replies."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.perspectra.metrics import TaskScores, t1_scores, t2_scores, t3_scores
from evaluation.perspectra.reply_parsers import Parsed, parse_count, parse_letter, parse_stance
from kg.prompt_files import Prompt, load_prompt
from kg.task_items import LETTERS, TaskItem

PROMPTS = {"t1": "perspectra/t1_count", "t2": "perspectra/t2_match", "t3": "perspectra/t3_polarity"}


def task_prompt(task: str) -> Prompt:
    return load_prompt(PROMPTS[task])


def render_item(item: TaskItem, prompt: Prompt | None = None) -> str:
    prompt = prompt or task_prompt(item.task)
    options = "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(item.options))
    return prompt.render(topic=item.topic, text=item.text, options=options)


def parse_for(item: TaskItem, reply: str | None) -> Parsed:
    if reply is None:
        return Parsed(None, "no reply")
    if item.task == "t1":
        return parse_count(reply)
    if item.task == "t2":
        return parse_letter(reply, LETTERS[: len(item.options)])
    return parse_stance(reply)


def is_correct(item: TaskItem, parsed: Parsed) -> bool:
    return parsed.valid and parsed.value == item.gold


def score(items: Sequence[TaskItem], parsed: Sequence[Parsed]) -> TaskScores:
    tasks = {i.task for i in items}
    if len(tasks) != 1:
        raise ValueError(f"score one task at a time (got {sorted(tasks)})")
    task = tasks.pop()
    if task == "t1":
        return t1_scores([int(i.gold) for i in items], parsed)
    if task == "t2":
        return t2_scores(
            [i.gold for i in items],
            parsed,
            [i.option_stances for i in items],
            [i.gold_stance or "" for i in items],
        )
    return t3_scores([i.gold for i in items], parsed, [i.text for i in items])
