"""Content-hash uids of the graph model (docs/graph-model.md).

uid = first 24 hex chars of sha256 over a canonical JSON array of the identifying fields, so every
importer and builder that writes the same thing MERGEs onto the same node or edge.
"""

from __future__ import annotations

import hashlib
import json


def content_uid(*fields: object) -> str:
    canonical = json.dumps(list(fields), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


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
