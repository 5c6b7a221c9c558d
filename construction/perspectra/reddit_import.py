"""Reddit comment dumps (JSONL, usual Reddit field names) -> candidate comments of topics.

Pipeline for new data, as in the PERSPECTRA paper: per topic keep the first `threads_per_topic`
threads (dump order = retrieval order), per thread the `comments_per_thread` best by score; then
drop comments with no author / `[deleted]`, by `automoderator`, by a username containing `bot`,
distinguished as moderator, or with fewer than `min_words` words. Every drop is counted.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError

from construction.perspectra.errors import PerspectraInputError, Problem
from construction.perspectra.json_reading import jsonl_records
from construction.perspectra.models import CommentRow, RedditComment, validation_messages
from construction.perspectra.rows import ImportRows, provenance
from kg import ids

FILTERS = ("no_author", "automoderator", "bot_name", "moderator", "too_short")


class RedditBudget(BaseModel):
    threads_per_topic: int = 20
    comments_per_thread: int = 100
    min_words: int = 5


def filter_reason(c: RedditComment, min_words: int = 5) -> str | None:
    """The first filter a comment fails (in FILTERS order), or None when it is kept."""
    author = (c.author or "").strip()
    if not author or author.lower() in {"[deleted]", "[removed]"}:
        return "no_author"
    if author.lower() == "automoderator":
        return "automoderator"
    if "bot" in author.lower():
        return "bot_name"
    if (c.distinguished or "").lower() == "moderator":
        return "moderator"
    if len(c.body.split()) < min_words:
        return "too_short"
    return None


@dataclass
class RedditReport:
    read: int = 0
    beyond_thread_budget: int = 0
    beyond_comment_budget: int = 0
    filtered: Counter[str] = field(default_factory=Counter)
    duplicate_text: int = 0
    kept: int = 0
    per_topic: dict[str, int] = field(default_factory=dict)

    def as_rows(self) -> list[tuple[str, int]]:
        out = [
            ("comments read", self.read),
            ("dropped: beyond thread budget", self.beyond_thread_budget),
            ("dropped: beyond comment budget", self.beyond_comment_budget),
        ]
        out += [(f"filtered: {name}", self.filtered[name]) for name in FILTERS]
        out += [
            ("merged: same text twice in a topic", self.duplicate_text),
            ("kept (candidate links)", self.kept),
        ]
        return out


def read_dump(path: Path, default_topic: str | None) -> list[tuple[str, RedditComment]]:
    problems: list[Problem] = []
    out: list[tuple[str, RedditComment]] = []
    for line, raw in jsonl_records(path):
        try:
            c = RedditComment.model_validate(raw)
        except ValidationError as e:
            problems += [Problem.at(line, f, m) for f, m in validation_messages(e)]
            continue
        topic = c.topic or default_topic
        if topic is None:
            problems.append(Problem.at(line, "topic", "no topic: give a `topic` field or --topic"))
            continue
        out.append((topic, c))
    if problems:
        raise PerspectraInputError(path, problems)
    return out


def reddit_rows(
    path: Path, default_topic: str | None = None, budget: RedditBudget | None = None
) -> tuple[ImportRows, RedditReport]:
    budget = budget or RedditBudget()
    records = read_dump(path, default_topic)
    report = RedditReport(read=len(records))
    threads: dict[str, dict[str, list[RedditComment]]] = defaultdict(dict)
    for topic, c in records:  # dicts keep first-appearance order of threads
        threads[topic].setdefault(c.link_id, []).append(c)
    prov = provenance("perspectra.import_reddit", path.name)
    rows = ImportRows()
    comments: dict[str, CommentRow] = {}
    links: set[tuple[str, str]] = set()
    for topic, by_thread in threads.items():
        t_uid = ids.topic_uid(topic)
        kept_before = len(links)
        for rank, comments_of_thread in enumerate(by_thread.values()):
            if rank >= budget.threads_per_topic:
                report.beyond_thread_budget += len(comments_of_thread)
                continue
            best = sorted(comments_of_thread, key=lambda c: -c.score)
            report.beyond_comment_budget += max(0, len(best) - budget.comments_per_thread)
            for c in best[: budget.comments_per_thread]:
                reason = filter_reason(c, budget.min_words)
                if reason:
                    report.filtered[reason] += 1
                    continue
                c_uid = ids.comment_uid(c.body)
                if (c_uid, t_uid) in links:
                    report.duplicate_text += 1
                    continue
                comments.setdefault(
                    c_uid,
                    CommentRow(
                        uid=c_uid,
                        text=c.body,
                        author=c.author,
                        score=c.score,
                        distinguished=c.distinguished,
                        subreddit=c.subreddit,
                        thread=c.link_id,
                        reddit_id=c.id,
                        source=prov,
                    ),
                )
                links.add((c_uid, t_uid))
        report.per_topic[topic] = len(links) - kept_before
    rows.comments = list(comments.values())
    rows.candidates = sorted(links)
    report.kept = len(rows.candidates)
    return rows, report
