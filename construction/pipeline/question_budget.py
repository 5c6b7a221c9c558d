"""Which perspectives get a question when a domain has more than the budget.

Offline drafts multiply 3-hop perspectives combinatorially (a few hub concepts give thousands of
chains), so an unbounded draft is mostly 3-hop questions about the same concepts, unlike the
published benchmark (Table 1: about a third 1-hop, half 2-hop, a sixth 3-hop; 333 physics and
328 biology questions). The budget keeps the published shape: each hop gets its share of the
budget (a hop with fewer perspectives than its share passes the rest to the others, in
proportion), and within a hop the perspectives are taken round-robin over endpoint pairs, so
every pair is asked about once before any pair twice. Deterministic: the same perspectives give
the same selection, so a resumed build asks the same ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# The paper's Table 1, physics and biology pooled (1/2/3 hops): 217 / 325 / 119.
PAPER_HOP_SHARE = {1: 217 / 661, 2: 325 / 661, 3: 119 / 661}


def hop_quotas(available: dict[int, int], budget: int) -> dict[int, int]:
    """Questions per hop: the paper's shares of `budget`, capped by what each hop has, the
    remainder passed on in proportion until the budget or the perspectives run out."""
    quota = {h: 0 for h in available}
    left = min(budget, sum(available.values()))
    open_hops = [h for h in sorted(available) if available[h] > 0]
    while left > 0 and open_hops:
        weights = {h: PAPER_HOP_SHARE.get(h, 1 / 3) for h in open_hops}
        total = sum(weights.values())
        exact = {h: left * weights[h] / total for h in open_hops}
        share = {h: int(x) for h, x in exact.items()}
        # Largest remainders get the units that rounding down left over.
        for h in sorted(open_hops, key=lambda h: (share[h] - exact[h], h))[
            : left - sum(share.values())
        ]:
            share[h] += 1
        for h in open_hops:
            take = min(share[h], available[h] - quota[h])
            quota[h] += take
            left -= take
        open_hops = [h for h in open_hops if quota[h] < available[h]]
    return quota


def round_robin(views: Sequence[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """`n` views, one per endpoint pair in turn (in the order given), then a second one..."""
    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for v in views:
        keys = v["concept_keys"]
        by_pair.setdefault((keys[0], keys[-1]), []).append(v)
    queues = list(by_pair.values())
    out: list[dict[str, Any]] = []
    depth = 0
    while len(out) < n and any(depth < len(q) for q in queues):
        out.extend(q[depth] for q in queues if depth < len(q))
        depth += 1
    return out[:n]


def hops(view: dict[str, Any]) -> int:
    """A perspective's hop count, as its question records it (its longest target path)."""
    return max(int(p["hops"]) for p in view["targets"])


def select(views: Sequence[dict[str, Any]], budget: int | None) -> list[dict[str, Any]]:
    """The views that get a question (all of them without a budget, or within it)."""
    if not budget or len(views) <= budget:
        return list(views)
    by_hop: dict[int, list[dict[str, Any]]] = {}
    for v in views:
        by_hop.setdefault(hops(v), []).append(v)
    quotas = hop_quotas({h: len(vs) for h, vs in by_hop.items()}, budget)
    chosen = {id(v) for h, vs in by_hop.items() for v in round_robin(vs, quotas[h])}
    return [v for v in views if id(v) in chosen]
