"""LLM expansions: one per (topic, opinion, matched comment), through the provider layer.

Resume: only slots without an expansion from this generator are asked for (`expansion_pending`),
and each chunk is written as soon as it is answered, so a killed run continues where it stopped;
the provider's response cache makes a re-run of answered prompts free. An empty reply or a
failed call is counted, never stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from construction.perspectra.graph_writer import write_import
from construction.perspectra.models import ExpansionRow
from construction.perspectra.rows import ImportRows, provenance
from kg import ids
from kg.llm import LLMClient, LLMRequest
from kg.prompt_files import load_prompt
from kg.store import Store

PROMPT = "perspectra/expand"
STANCE_PHRASE = {"pro": "for", "con": "against"}


@dataclass
class ExpansionReport:
    pending: int = 0
    written: int = 0
    empty: int = 0
    failed: int = 0
    cached: int = 0
    errors: list[str] = field(default_factory=list)


def clean_expansion(text: str) -> str:
    """Strip whitespace and one pair of wrapping quotes; an empty result means no expansion."""
    t = text.strip()
    if len(t) >= 2 and (t[0], t[-1]) in {('"', '"'), ("'", "'"), ("“", "”")}:
        t = t[1:-1].strip()
    return t


def render(slot: dict[str, Any]) -> str:
    return load_prompt(PROMPT).render(
        topic=slot["topic"],
        stance=slot["stance"],
        stance_phrase=STANCE_PHRASE[slot["stance"]],
        opinion=slot["opinion"],
        comment=slot["comment"],
    )


def pending_slots(
    store: Store, generator: str, topic: str | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    return store.read(
        "perspectra/expansion_pending",
        generator=generator,
        topic=topic,
        limit=limit if limit is not None else 10**9,
    )


def expand(
    store: Store,
    client: LLMClient,
    topic: str | None = None,
    limit: int | None = None,
    chunk: int = 32,
) -> ExpansionReport:
    generator = client.config.model
    prompt = load_prompt(PROMPT)
    slots = pending_slots(store, generator, topic, limit)
    report = ExpansionReport(pending=len(slots))
    prov = provenance("perspectra.expand", "llm", model=generator, prompt_hash=prompt.hash)

    async def main() -> None:
        for start in range(0, len(slots), chunk):
            part = slots[start : start + chunk]
            requests = [
                LLMRequest(
                    messages=[{"role": "user", "content": render(s)}],
                    prompt_name=PROMPT,
                    prompt_hash=prompt.hash,
                )
                for s in part
            ]
            replies = await client.complete_many(requests, return_exceptions=True)
            rows = []
            for slot, reply in zip(part, replies, strict=True):
                if isinstance(reply, BaseException):
                    report.failed += 1
                    report.errors.append(str(reply)[:300])
                    continue
                report.cached += reply.cached
                text = clean_expansion(reply.text)
                if not text:
                    report.empty += 1
                    continue
                rows.append(
                    ExpansionRow(
                        uid=ids.expansion_uid(slot["opinion_uid"], text),
                        opinion_uid=slot["opinion_uid"],
                        comment_uid=slot["comment_uid"],
                        rank=slot["rank"],
                        text=text,
                        generator=generator,
                        prompt_hash=prompt.hash,
                        source=prov,
                    )
                )
            if rows:
                write_import(store, ImportRows(expansions=rows))
                report.written += len(rows)

    client.run_sync(main)
    return report
