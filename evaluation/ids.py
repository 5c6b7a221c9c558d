"""Uids of answers, verdicts and claims, on the shared content-hash scheme of `kg.ids`."""

from __future__ import annotations

from kg.ids import content_uid


def answer_uid(run: str, question: str) -> str:
    return content_uid("answer", run, question)


def verdict_uid(run: str, answer: str, path: str) -> str:
    return content_uid("verdict", run, answer, path)


def claim_uid(run: str, answer: str, pos: int) -> str:
    return content_uid("claim", run, answer, pos)
