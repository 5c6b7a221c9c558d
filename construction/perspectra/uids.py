"""Uids of the PERSPECTRA nodes, on the shared content-hash scheme of `kg.ids`."""

from __future__ import annotations

from kg.ids import content_uid


def topic_uid(text: str) -> str:
    return content_uid("DebateTopic", text)


def opinion_uid(topic_text: str, stance: str, text: str) -> str:
    return content_uid("Opinion", topic_text, stance, text)


def comment_uid(text: str) -> str:
    # The contract says Comment uid = hash(text): one node per distinct comment text.
    return content_uid(text)


def expansion_uid(opinion: str, text: str) -> str:
    return content_uid("Expansion", opinion, text)
