"""Reddit pipeline: thread/comment budgets and the counted filters (nothing dropped silently)."""

from __future__ import annotations

import json
from pathlib import Path

from construction.perspectra.models import RedditComment
from construction.perspectra.reddit_import import (
    FILTERS,
    RedditBudget,
    filter_reason,
    reddit_rows,
)

DEMO = Path(__file__).resolve().parents[2] / "demo" / "perspectra"


def _c(
    author: str | None = "someone",
    body: str = "one two three four five",
    distinguished: str | None = None,
    score: int = 1,
    link: str = "t3_x",
) -> RedditComment:
    return RedditComment(
        id="i", author=author, body=body, score=score, distinguished=distinguished, link_id=link
    )


def test_each_filter() -> None:
    assert filter_reason(_c()) is None
    assert filter_reason(_c(author=None)) == "no_author"
    assert filter_reason(_c(author="")) == "no_author"
    assert filter_reason(_c(author="[deleted]")) == "no_author"
    assert filter_reason(_c(author="AutoModerator")) == "automoderator"
    assert filter_reason(_c(author="RemindMeBot")) == "bot_name"
    assert filter_reason(_c(author="robotics_fan")) == "bot_name"  # the rule as stated
    assert filter_reason(_c(distinguished="moderator")) == "moderator"
    assert filter_reason(_c(distinguished="admin")) is None
    assert filter_reason(_c(body="only four words here")) == "too_short"
    assert filter_reason(_c(body="only four words here"), min_words=4) is None


def test_sample_dump_counts_add_up() -> None:
    rows, report = reddit_rows(DEMO / "sample_reddit.jsonl")
    assert report.read == 18
    assert dict(report.filtered) == {
        "no_author": 2,
        "automoderator": 1,
        "bot_name": 1,
        "moderator": 1,
        "too_short": 1,
    }
    dropped = (
        report.beyond_thread_budget
        + report.beyond_comment_budget
        + sum(report.filtered.values())
        + report.duplicate_text
    )
    assert dropped + report.kept == report.read
    assert report.kept == len(rows.candidates) == 12
    assert set(report.per_topic.values()) == {4}
    kept = {c.text: c for c in rows.comments}
    c = kept["I would take the train every day if it did not cost me eight dollars a trip."]
    assert (c.author, c.score, c.thread, c.subreddit) == ("commuter42", 27, "t3_a2", "changemyview")
    assert [name for name, _ in report.as_rows()][3 : 3 + len(FILTERS)] == [
        f"filtered: {f}" for f in FILTERS
    ]


def test_budgets_keep_first_threads_and_best_comments(tmp_path: Path) -> None:
    lines = []
    for t in range(4):
        for k in range(5):
            lines.append(
                {
                    "id": f"{t}-{k}",
                    "author": f"user{t}{k}",
                    "score": k,
                    "body": f"thread {t} comment {k} has enough words",
                    "link_id": f"t{t}",
                    "topic": "T",
                }
            )
    f = tmp_path / "dump.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines))
    rows, report = reddit_rows(f, budget=RedditBudget(threads_per_topic=2, comments_per_thread=3))
    assert report.beyond_thread_budget == 10  # threads t2, t3 (dump order = retrieval order)
    assert report.beyond_comment_budget == 4  # 2 lowest-scored in each kept thread
    assert sorted(c.text for c in rows.comments) == sorted(
        f"thread {t} comment {k} has enough words" for t in (0, 1) for k in (2, 3, 4)
    )


def test_same_text_twice_in_a_topic_is_counted_once(tmp_path: Path) -> None:
    body = "the very same comment text appears twice"
    lines = [
        {
            "id": str(i),
            "author": f"u{i}",
            "body": body,
            "score": 1,
            "link_id": f"t{i}",
            "topic": "T",
        }
        for i in range(2)
    ]
    lines.append(
        {"id": "9", "author": "u9", "body": body, "score": 1, "link_id": "t9", "topic": "Other"}
    )
    f = tmp_path / "dup.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines))
    rows, report = reddit_rows(f)
    assert report.duplicate_text == 1
    assert len(rows.comments) == 1 and len(rows.candidates) == 2  # one node, two topics
