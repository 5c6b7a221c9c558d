"""PROOF formulations of a question (issue 13): the original, neutral rewordings, an
adversarial phrasing that invites a distractor perspective, and an injected false hint naming
a distractor path's relation.

The distractor a question's adversarial and hint formulations name is chosen seeded by (run
seed, question uid), so reruns ask the same text; it is stored on the answer (`formulated`,
`hint_path`). A question without a distractor path has no adversarial or hint formulation.
"""

from __future__ import annotations

import random

from pydantic import BaseModel

from evaluation.models import EvalPath, EvalQuestion
from kg.errors import InputError
from kg.prompt_files import load_prompt

ORIGINAL = "original"
# name -> template (prompts/eval/formulation_*.md); "original" asks the stored text
TEMPLATES = {
    "neutral-1": "eval/formulation_neutral_1",
    "neutral-2": "eval/formulation_neutral_2",
    "adversarial": "eval/formulation_adversarial",
    "hint": "eval/formulation_hint",
}
NAMES = (ORIGINAL, *TEMPLATES)
NEEDS_DISTRACTOR = ("adversarial", "hint")


class Formulation(BaseModel):
    name: str
    text: str  # the question as asked
    hint_path: str | None = None  # uid of the distractor path whose relation is named


def parse_names(value: str | list[str] | None) -> list[str]:
    """`--formulations` value ("all" or comma-separated names) -> the names, original first."""
    if value is None:
        return []
    raw = value if isinstance(value, list) else value.split(",")
    names = [n.strip() for n in raw if n.strip()]
    if names == ["all"]:
        return list(NAMES)
    bad = [n for n in names if n not in NAMES]
    if bad:
        raise InputError(
            f"--formulations: unknown formulation(s) {', '.join(map(repr, bad))}: "
            f"choose from {', '.join(NAMES)} (or all)"
        )
    return [n for n in NAMES if n in names]


def _distractor(q: EvalQuestion, seed: int) -> EvalPath | None:
    distractors = sorted((p for p in q.paths if not p.target), key=lambda p: p.uid)
    if not distractors:
        return None
    # a false hint: prefer a relation no target path uses
    target_labels = {label for p in q.targets for label in p.labels}
    distractors = [p for p in distractors if p.labels[0] not in target_labels] or distractors
    return random.Random(f"{seed}:proof:{q.uid}").choice(distractors)


def formulate(q: EvalQuestion, names: list[str], seed: int) -> list[Formulation]:
    """The question's formulations other than the original (which is the plain variant)."""
    out = []
    path = _distractor(q, seed)
    for name in names:
        if name == ORIGINAL:
            continue
        if name in NEEDS_DISTRACTOR and path is None:
            continue
        relation = path.labels[0] if path is not None else ""
        text = load_prompt(TEMPLATES[name]).render(
            question=q.text.strip(),
            relation=relation,
            relation_words=relation.lower().replace("_", " "),
        )
        hint = path.uid if (name in NEEDS_DISTRACTOR and path is not None) else None
        out.append(Formulation(name=name, text=text.strip(), hint_path=hint))
    return out
