"""C3 context perturbations (issue 13): content-neutral, topic-aligned text put before a
question, to see whether the answer stays the same.

Perturbation i (1..C) of a question is seeded by (run seed, question uid, i), so a rerun or a
resume builds the very same text (it is also stored on the answer):
- odd i, "facts": a preamble of `PREAMBLE_FACTS` true facts of the question's domain taken
  from outside the question's own graph (same topic area, nothing the answer needs or that
  contradicts it);
- even i, "framing": one neutral framing sentence (prompts/eval/context_framings.md).
If a domain has no fact outside the question's graph, the perturbation is a framing one.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Literal

from pydantic import BaseModel

from evaluation.models import EvalQuestion
from evaluation.responders.contexts import domain_facts, question_facts
from kg.errors import InputError
from kg.prompt_files import load_prompt
from kg.store import Store

PREAMBLE_FACTS = 3
CONTEXT_PROMPTS = ["eval/context_facts", "eval/context_framings"]


class Perturbation(BaseModel):
    id: str  # "c1", "c2", ...: the answer's context_variant
    kind: Literal["facts", "framing"]
    text: str


def framings() -> list[str]:
    lines = load_prompt("eval/context_framings").text.splitlines()
    return [ln.strip() for ln in lines if ln.strip()]


def _framing(rng: random.Random) -> str:
    return rng.choice(framings())


def build_perturbations(
    store: Store, questions: list[EvalQuestion], count: int, seed: int
) -> dict[str, list[Perturbation]]:
    """question uid -> its `count` perturbations (empty lists for count 0)."""
    if count < 0:
        raise InputError(f"--contexts: must be >= 0 (got {count})")
    if count == 0:
        return {q.uid: [] for q in questions}
    own = question_facts(store, questions)
    corpus: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for domain in sorted({q.domain for q in questions}):
        corpus[domain] = [(f.uid, f.text) for f in domain_facts(store, domain)]
    out: dict[str, list[Perturbation]] = {}
    for q in questions:
        excluded = {f.uid for f in own.get(q.uid, [])} | {f.uid for f in q.evidence}
        pool = [(u, t) for u, t in corpus[q.domain] if u not in excluded]
        items = []
        for i in range(1, count + 1):
            rng = random.Random(f"{seed}:c3:{q.uid}:{i}")
            if i % 2 == 1 and pool:
                facts = rng.sample(pool, min(PREAMBLE_FACTS, len(pool)))
                text = load_prompt("eval/context_facts").render(
                    facts="\n".join(f"- {t}" for _, t in facts)
                )
                items.append(Perturbation(id=f"c{i}", kind="facts", text=text.strip()))
            else:
                items.append(Perturbation(id=f"c{i}", kind="framing", text=_framing(rng)))
        out[q.uid] = items
    return out
