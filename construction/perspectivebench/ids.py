"""Uids of the PerspectiveBench nodes and edges, on the shared scheme of `kg.ids`."""

from __future__ import annotations

from kg.ids import content_uid


def concept_uid(domain: str, key: str) -> str:
    return content_uid(domain, key)


def fact_uid(domain: str, text: str) -> str:
    return content_uid(domain, text)


def path_uid(domain: str, signature: str) -> str:
    return content_uid(domain, signature)


def question_uid(domain: str, external_id: int) -> str:
    return content_uid(domain, external_id)


def relates_uid(domain: str, from_key: str, label: str, to_key: str) -> str:
    return content_uid(domain, from_key, label, to_key)
