"""All simple paths of 1-3 labeled edges between every concept pair of a synthetic graph (2,000
concepts, 10,000 edges, parallel edges allowed): the Cypher route (query + transfer of every path
to Python, as path signatures) against networkx `all_simple_edge_paths` on the same edges
(producing the same signatures), in the same run.

Writes the synthetic domain into the configured instance and deletes it afterwards.

    KG_BOLT_PORT=... python benchmarks/bench_allpaths.py [--concepts 2000 --edges 10000]
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import time

import networkx as nx
from bench_cypher import run_auto_commit, write_rows

from kg import ids
from kg.paths import format_signature
from kg.store import Store

DOMAIN = "synthetic_allpaths_bench"
LABELS = ["CAUSES", "ENABLES", "PRECEDES", "CONTRASTS_WITH", "IS_PART_OF", "IS_A_TYPE_OF"]


def synthetic_edges(n: int, m: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    edges: set[tuple[str, str, str]] = set()
    while len(edges) < m:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:  # parallel edges (same pair, another label) are allowed
            edges.add((f"c{a}", rng.choice(LABELS), f"c{b}"))
    return sorted(edges)


def delete_domain(store: Store) -> None:
    run_auto_commit(store, "delete_concepts_of_domain", domain=DOMAIN)


def cypher_route(store: Store) -> set[str]:
    """Path signatures from Cypher, one record per start concept."""
    with store.session() as s:
        res = s.run(_query("bench/all_paths"), domain=DOMAIN)
        return {sig for r in res for sig in r["signatures"]}


def _query(name: str) -> str:
    from kg import cypher_files

    return cypher_files.load(name)


def networkx_route(edges: list[tuple[str, str, str]]) -> set[str]:
    """The same signatures from networkx (graph built from the same edge list, time included)."""
    g = nx.MultiDiGraph()
    for a, label, b in edges:
        g.add_edge(a, b, key=label)
    out = set()
    for source in g.nodes:
        targets = set(g.nodes) - {source}
        for path in nx.all_simple_edge_paths(g, source, targets, cutoff=3):
            keys = [path[0][0], *(v for _, v, _ in path)]
            out.add(format_signature(keys, [k for _, _, k in path]))
    return out


def timed(fn, repeat: int) -> tuple[float, set[str]]:
    times, result = [], set()
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concepts", type=int, default=2000)
    ap.add_argument("--edges", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="runs per route; the median is shown")
    args = ap.parse_args()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    edges = synthetic_edges(args.concepts, args.edges, args.seed)
    with Store() as store:
        store.ensure_schema()
        delete_domain(store)
        write_rows(
            store,
            "synthetic_concepts",
            [
                {"uid": ids.concept_uid(DOMAIN, f"c{i}"), "domain": DOMAIN, "key": f"c{i}"}
                for i in range(args.concepts)
            ],
        )
        write_rows(
            store,
            "synthetic_edges",
            [
                {
                    "uid": ids.relates_uid(DOMAIN, a, label, b),
                    "label": label,
                    "domain": DOMAIN,
                    "from": ids.concept_uid(DOMAIN, a),
                    "to": ids.concept_uid(DOMAIN, b),
                }
                for a, label, b in edges
            ],
        )
        try:
            cypher_route(store)  # warm the plan and page cache
            t_cypher, cy = timed(lambda: cypher_route(store), args.repeat)
        finally:
            delete_domain(store)
    t_nx, nxp = timed(lambda: networkx_route(edges), args.repeat)
    print(f"graph: {args.concepts} concepts, {len(edges)} labeled edges (seed {args.seed})")
    print(
        f"paths of 1-3 hops between every pair: {len(cy):,} (Cypher) / {len(nxp):,} (networkx);"
        f" identical sets: {cy == nxp}"
    )
    print(f"Cypher (query + transfer to Python): {t_cypher:.2f} s (median of {args.repeat})")
    print(f"networkx all_simple_edge_paths:      {t_nx:.2f} s (median of {args.repeat})")
    print(f"ratio networkx / Cypher: {t_nx / t_cypher:.2f} (>= 1 means Cypher is at least as fast)")


if __name__ == "__main__":
    main()
