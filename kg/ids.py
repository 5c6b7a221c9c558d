"""Every uid of the graph model (docs/graph-model.md), one scheme for every area.

uid = first 24 hex chars of sha256 over a canonical JSON array of the identifying fields, so
every importer, builder and run that writes the same thing MERGEs onto the same node or edge.
Keys of mappings are sorted; a field JSON cannot encode is an error, never silently stringified.

The values identify stored nodes and must never change (`tests/unit/test_golden_ids.py` pins
them). The prefixes differ between areas for that reason: PerspectiveBench and build uids carry
the domain first, PERSPECTRA uids the node label, evaluation uids a lower-case kind.
"""

from __future__ import annotations

import hashlib
import json


def content_uid(*fields: object) -> str:
    canonical = json.dumps(list(fields), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


def fingerprint(items: list[str]) -> str:
    """Order-independent hash of a set of uids: decides whether a domain-level stage is stale."""
    return content_uid(*sorted(set(items)))


# -- PerspectiveBench and the construction pipeline: (domain, ...) ---------------------------
def concept_uid(domain: str, key: str) -> str:
    return content_uid(domain, key)


def fact_uid(domain: str, text: str) -> str:
    return content_uid(domain, text)


def entity_uid(domain: str, name: str) -> str:
    return content_uid(domain, name.lower())


def chunk_uid(domain: str, source: str, text: str) -> str:
    return content_uid(domain, source, text)


def perspective_uid(domain: str, seq: list[str], level: str, focus: list[str]) -> str:
    return content_uid(domain, "perspective", *seq, level, *focus)


def build_step_uid(domain: str, stage: str, item: str, generation: int = 0) -> str:
    """Resume state: one BuildStep per finished (stage, item) of a build generation (the first
    generation's uids are those of builds before `--extend` existed)."""
    if generation:
        return content_uid(domain, stage, item, generation)
    return content_uid(domain, stage, item)


def build_run_uid(domain: str, started_ns: int) -> str:
    return content_uid("build", domain, started_ns)


def path_uid(domain: str, signature: str) -> str:
    return content_uid(domain, signature)


def question_uid(domain: str, external_id: int) -> str:
    return content_uid(domain, external_id)


def relates_uid(domain: str, from_key: str, label: str, to_key: str) -> str:
    return content_uid(domain, from_key, label, to_key)


# -- PERSPECTRA: (label, ...) ------------------------------------------------------------------
def topic_uid(text: str) -> str:
    return content_uid("DebateTopic", text)


def opinion_uid(topic_text: str, stance: str, text: str) -> str:
    return content_uid("Opinion", topic_text, stance, text)


def comment_uid(text: str) -> str:
    # The contract says Comment uid = hash(text): one node per distinct comment text.
    return content_uid(text)


def expansion_uid(opinion: str, text: str) -> str:
    return content_uid("Expansion", opinion, text)


def task_item_uid(task_set: str, index: int) -> str:
    return content_uid("TaskItem", task_set, index)


def task_answer_uid(run: str, item: str) -> str:
    return content_uid("Answer", run, item)


# -- evaluation: (kind, run, ...) --------------------------------------------------------------
def answer_uid(run: str, question: str, variant: dict[str, object] | None = None) -> str:
    """`variant`: the non-default fields of the answer's variant (`AnswerVariant.key()`);
    None (sample 0, nothing perturbed) keeps the uid answers had before variants existed."""
    if not variant:
        return content_uid("answer", run, question)
    return content_uid("answer", run, question, variant)


def verdict_uid(run: str, answer: str, path: str) -> str:
    return content_uid("verdict", run, answer, path)


def claim_uid(run: str, answer: str, pos: int) -> str:
    return content_uid("claim", run, answer, pos)
