"""A random sample of a built domain's edges with their evidence, for a person to read.

    python benchmarks/build_offline.py --keep            # builds bench_physics, bench_biology...
    python benchmarks/edge_sample.py bench_biology [--n 20] [--seed 12]

Prints each sampled edge as `source -LABEL-> target || evidence`, numbered, so a reader can mark
each one plausible (the evidence states this relation, in this direction) or not, and report
the share. No figure is computed here: the judgement is the reader's (docs/offline-builder.md
records the readings made so far, with the seed).
"""

from __future__ import annotations

import argparse
import random

import bench_cypher

from kg.store import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("domain")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    with Store() as store:
        edges = store.run_text(bench_cypher.load("edges_of_domain"), domain=args.domain)
    if not edges:
        raise SystemExit(f"domain {args.domain!r} has no edges (build it first)")
    sample = random.Random(args.seed).sample(edges, min(args.n, len(edges)))
    print(f"{args.domain}: {len(sample)} of {len(edges)} edges (seed {args.seed})")
    for i, e in enumerate(sample, 1):
        print(f"{i:3d}. {e['source']} -{e['label']}-> {e['target']}  || {e['reason']}")


if __name__ == "__main__":
    main()
