"""Prompts of the area: every slot filled, the answer shape the strict parsers expect."""

from __future__ import annotations

from construction.perspectra.expansion import clean_expansion, render
from evaluation.perspectra.reply_parsers import parse_count, parse_letter, parse_stance
from evaluation.perspectra.scoring import render_item, task_prompt
from kg.task_items import TaskItem


def _item(task: str, **kw) -> TaskItem:
    base = dict(
        uid="u",
        task=task,
        build="b",
        index=0,
        seed=1,
        topic_uid="T",
        topic="Cities should make public transport free.",
        text="Passage one.\n\nTwo.",
        expansion_uids=["e"],
        expansion_opinions=["o"],
        opinion_uids=["o"],
        gold="1",
    )
    return TaskItem(**{**base, **kw})


def test_task_prompts_render_and_ask_for_parsable_json() -> None:
    t2 = _item(
        "t2",
        options=["Fares pay for repairs.", "Buses get faster."],
        option_uids=["a", "b"],
        option_stances=["con", "pro"],
        gold="B",
    )
    text = render_item(t2)
    assert "A. Fares pay for repairs.\nB. Buses get faster." in text
    assert "Passage one." in text and "$" not in text
    assert '{"answer": "<letter>"}' in text
    assert '{"count": <integer>}' in render_item(_item("t1"))
    assert '{"stance": "pro"}' in render_item(_item("t3", gold="pro"))
    # the example shapes in the prompts are exactly what the parsers accept
    assert parse_count('{"count": 3}').valid and parse_letter('{"answer": "B"}', "AB").valid
    assert parse_stance('{"stance": "con"}').valid
    assert len({task_prompt(t).hash for t in ("t1", "t2", "t3")}) == 3


def test_expansion_prompt_keeps_stance_and_uses_comment_for_style() -> None:
    text = render(
        {
            "topic": "Homework should be banned.",
            "stance": "con",
            "opinion": "Homework builds study habits.",
            "comment": "lol my kid does worksheets every night",
        }
    )
    assert "argue against" in text and "Homework builds study habits." in text
    assert "lol my kid does worksheets every night" in text and "$" not in text


def test_clean_expansion() -> None:
    assert clean_expansion('  "Honestly, it works."  ') == "Honestly, it works."
    assert clean_expansion("“Quoted”") == "Quoted"
    assert clean_expansion("   ") == ""
    assert clean_expansion("It's 'fine' really") == "It's 'fine' really"
