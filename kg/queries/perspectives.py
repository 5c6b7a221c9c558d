"""Perspectives as the published benchmark defines them: between two concepts, the valid paths
over one concept sequence that share a relation at one hop position.

One grouping, one place: the candidates come from `cypher/core/perspective_candidates.cypher`,
read by `kg perspectives`, the build's stage 7 and `kg validate`. It is pure Cypher (no GDS
projection), so every server gives the same result.

Which candidates are asked is `select`: per concept sequence, the hop positions where the
relations differ are ranked by fewest distinct relations, then earliest, and the perspectives
at the first max(1, hops - 1) positions are selected (a 1- or 2-hop sequence: one position, a
3-hop sequence: two). A candidate whose paths are nearly those of one already selected
(Jaccard >= NEAR_DUPLICATE) is not selected. The rule reads only the paths' labels: never a
question, a theme or a target, so a built draft (which has no questions yet) gets the same
selection as an imported benchmark. See docs/perspectives.md for how it was chosen and what it
reproduces.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Literal

from kg import ids
from kg.palette import stored_palette
from kg.queries.models import GraphPath, Perspective, QuestionRef
from kg.queries.paths import MAX_HOPS, check_hops
from kg.store import Store

Level = Literal["label", "category"]
NEAR_DUPLICATE = 0.75


def domain_palette(store: Store, domain: str) -> dict[str, str]:
    """The palette `kg build` stored on the domain, as label -> category (empty if none)."""
    palette = stored_palette(store, domain)
    return palette.category_map() if palette else {}


def candidates(
    store: Store,
    domain: str,
    start_key: str | None = None,
    end_key: str | None = None,
    *,
    by: Level = "label",
    palette: dict[str, str] | None = None,
    max_hops: int = MAX_HOPS,
    generation: int | None = None,
) -> list[Perspective]:
    """Every candidate perspective of `domain` (narrowed to the paths from `start_key` to
    `end_key` when given), ordered by generation, concept sequence, hop and relation. `palette`
    (label -> category) overrides the one `kg build` stored on the domain."""
    effective = {**domain_palette(store, domain), **(palette or {})}
    rows = store.read(
        "core/perspective_candidates",
        domain=domain,
        start=start_key,
        end=end_key,
        generation=generation,
        max_hops=check_hops(max_hops),
        by=by,
        palette=effective,
    )
    return [
        Perspective(
            concept_keys=r["seq"],
            generation=r["generation"],
            hop=r["hop"],
            focus=r["focus"],
            level=by if r["hop"] else "sequence",
            also_at=r["also_at"],
            foci_at_hop=r["foci_at_hop"],
            group_size=r["group_size"],
            paths=[GraphPath(**p) for p in r["paths"]],
        )
        for r in rows
    ]


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def select(perspectives: Sequence[Perspective]) -> list[Perspective]:
    """Mark (and return) the perspectives worth a question, by the rule in the module docstring.
    Deterministic: the same candidates give the same selection."""

    def group_of(p: Perspective) -> tuple[int, list[str]]:
        return p.generation, p.concept_keys

    chosen: list[Perspective] = []
    for (_, seq), members in groupby(sorted(perspectives, key=group_of), key=group_of):
        group = list(members)
        hop_level = [p for p in group if p.hop]  # hop 0: a whole sequence, never asked
        foci = {h: p.foci_at_hop for p in hop_level for h in [p.hop, *p.also_at]}
        positions = sorted(foci, key=lambda h: (foci[h], h))[: max(1, len(seq) - 2)]
        kept: list[Perspective] = []
        for p in sorted(hop_level, key=lambda p: (p.hop, p.focus)):
            if not {p.hop, *p.also_at} & set(positions):
                continue
            if any(jaccard(p.path_uids, k.path_uids) >= NEAR_DUPLICATE for k in kept):
                continue
            kept.append(p)
        chosen.extend(kept)
    picked = {id(p) for p in chosen}
    for p in perspectives:
        p.selected = id(p) in picked
    return chosen


def group_perspectives(
    store: Store,
    domain: str,
    start_key: str,
    end_key: str,
    palette: dict[str, str] | None = None,
    *,
    by: Level = "label",
    max_hops: int = MAX_HOPS,
) -> list[Perspective]:
    """The candidate perspectives between two concepts (keys in `domain`), the selected ones
    marked, each with the imported questions whose target set it is."""
    found = candidates(store, domain, start_key, end_key, by=by, palette=palette, max_hops=max_hops)
    select(found)
    _attach_questions(store, domain, start_key, end_key, found)
    return found


def _attach_questions(
    store: Store, domain: str, start_key: str, end_key: str, perspectives: list[Perspective]
) -> None:
    by_targets = {frozenset(p.signatures): p for p in perspectives}
    start, end = ids.concept_uid(domain, start_key), ids.concept_uid(domain, end_key)
    rows = store.read("bench/pair_questions", start=start, end=end)
    for row in rows:
        ref = QuestionRef(**row)
        persp = by_targets.get(frozenset(ref.targets))
        if persp is not None:
            persp.questions.append(ref)
