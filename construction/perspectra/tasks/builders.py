"""Seeded, reproducible task sets of the three PERSPECTRA tasks (pure: corpus in, items out)."""

from __future__ import annotations

import random
from typing import Any

from kg.errors import InputError
from kg.queries.perspectra_corpus import CExpansion, COpinion, Corpus, CTopic
from kg.task_items import LETTERS, TaskItem, TaskSetSpec

MAX_TRIES = 50  # redraws allowed to avoid an exact duplicate item


class TaskSetError(InputError):
    pass


def build_items(corpus: Corpus, spec: TaskSetSpec) -> list[TaskItem]:
    rng = random.Random(f"perspectra:{spec.task}:{spec.seed}")
    task_set = spec.task_set_id(corpus.fingerprint)
    make = {"t1": _t1, "t2": _t2, "t3": _t3}[spec.task]
    items: list[TaskItem] = []
    seen: set[tuple[str, ...]] = set()
    for index in range(spec.n):
        for _ in range(MAX_TRIES):
            fields = make(rng, corpus, spec)
            key = (*fields["expansion_uids"], *fields.get("option_uids", []))
            if key not in seen:
                break
        seen.add(key)
        items.append(
            TaskItem(
                uid=TaskItem.make_uid(task_set, index),
                task=spec.task,
                task_set=task_set,
                index=index,
                seed=spec.seed,
                **fields,
            )
        )
    return items


def _base(topic: CTopic) -> dict[str, object]:
    return {"topic_uid": topic.uid, "topic": topic.text}


def _t1(rng: random.Random, corpus: Corpus, spec: TaskSetSpec) -> dict[str, Any]:
    cfg = spec.t1
    eligible = [t for t in corpus.topics if len(t.opinions) >= cfg.k_min]
    if not eligible:
        raise TaskSetError(f"t1 needs a topic with at least {cfg.k_min} opinions")
    topic = rng.choice(eligible)
    k = rng.randint(cfg.k_min, min(cfg.k_max, len(topic.opinions)))
    chosen = rng.sample(topic.opinions, k)
    pieces = []
    for op in chosen:
        m = rng.randint(
            min(cfg.per_opinion_min, len(op.expansions)),
            min(cfg.per_opinion_max, len(op.expansions)),
        )
        pieces += [(op, e) for e in rng.sample(op.expansions, m)]
    rng.shuffle(pieces)
    return {
        **_base(topic),
        "text": cfg.separator.join(e.text for _, e in pieces),
        "expansion_uids": [e.uid for _, e in pieces],
        "expansion_opinions": [op.uid for op, _ in pieces],
        "opinion_uids": [op.uid for op in chosen],
        "gold": str(k),
    }


def _pick_expansion(
    rng: random.Random, corpus: Corpus, min_opinions: int = 1
) -> tuple[CTopic, COpinion, CExpansion]:
    topics = [t for t in corpus.topics if len(t.opinions) >= min_opinions]
    if not topics:
        raise TaskSetError(f"no topic with at least {min_opinions} opinions with expansions")
    topic = rng.choice(topics)
    op = rng.choice(topic.opinions)
    return topic, op, rng.choice(op.expansions)


def _t2(rng: random.Random, corpus: Corpus, spec: TaskSetSpec) -> dict[str, Any]:
    n_opt = spec.t2.options
    topic, gold, exp = _pick_expansion(rng, corpus, min_opinions=2)
    others = [o for o in topic.opinions if o.uid != gold.uid]
    same = [o for o in others if o.stance == gold.stance]
    opposite = [o for o in others if o.stance != gold.stance]
    distractors: list[COpinion] = []
    # Both sides among the distractors whenever the topic and option count allow it.
    for pool in (same, opposite):
        if pool and len(distractors) < n_opt - 1:
            distractors.append(rng.choice(pool))
    rest = [o for o in others if o not in distractors]
    distractors += rng.sample(rest, min(len(rest), n_opt - 1 - len(distractors)))
    options = [gold, *distractors]
    rng.shuffle(options)
    return {
        **_base(topic),
        "text": exp.text,
        "expansion_uids": [exp.uid],
        "expansion_opinions": [gold.uid],
        "opinion_uids": [gold.uid],
        "gold": LETTERS[options.index(gold)],
        "gold_stance": gold.stance,
        "options": [o.text for o in options],
        "option_uids": [o.uid for o in options],
        "option_stances": [o.stance for o in options],
    }


def _t3(rng: random.Random, corpus: Corpus, spec: TaskSetSpec) -> dict[str, Any]:
    cfg = spec.t3
    topic, op, exp = _pick_expansion(rng, corpus)
    pieces = [(op, exp)]
    if cfg.bundle > 1:
        pool = [(o, e) for o in topic.side(op.stance) for e in o.expansions if e.uid != exp.uid]
        pieces += rng.sample(pool, min(len(pool), cfg.bundle - 1))
        rng.shuffle(pieces)
    return {
        **_base(topic),
        "text": cfg.separator.join(e.text for _, e in pieces),
        "expansion_uids": [e.uid for _, e in pieces],
        "expansion_opinions": [o.uid for o, _ in pieces],
        "opinion_uids": sorted({o.uid for o, _ in pieces}),
        "gold": op.stance,
        "gold_stance": op.stance,
    }
