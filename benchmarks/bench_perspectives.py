"""`kg perspectives A B` latency on the imported sample: the grouping, selection and question
lookup in process (warm, median and max of many runs; target <= 0.5 s) and the whole CLI call
(a new process each time). Pure Cypher: no GDS projection per call.

Imports the shared sample into the configured instance (idempotent; other data stays).

    KG_BOLT_PORT=... python benchmarks/bench_perspectives.py [--runs 50] [--cli-runs 3]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import subprocess
import sys
import time
from pathlib import Path

from construction.perspectivebench.importer import import_perspectivebench
from kg.queries.concepts import find_concept
from kg.queries.perspectives import group_perspectives
from kg.store import Store

SAMPLE = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "perspectivebench" / "sample.jsonl"
)
PAIRS = [
    ("physics", "topic_3", "topic_13"),
    ("physics", "topic_10", "topic_12"),
    ("biology", "topic_1", "topic_20"),
    ("world_history", "topic_5", "topic_19"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=3)
    args = ap.parse_args()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    worst = 0.0
    with Store() as store:
        store.ensure_schema()
        import_perspectivebench(store, [SAMPLE])
        for domain, a, b in PAIRS:

            def once(domain=domain, a=a, b=b) -> tuple[int, int]:
                start = find_concept(store, a, domain=domain).chosen
                end = find_concept(store, b, domain=domain).chosen
                assert start and end, f"{a} or {b} not in {domain}"
                found = group_perspectives(store, domain, start.key, end.key)
                return len(found), sum(p.selected for p in found)

            n, sel = once()
            for _ in range(3):
                once()  # warm
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                once()
                times.append(time.perf_counter() - t0)
            worst = max(worst, max(times))
            print(
                f"{domain} {a} -> {b}: {n} perspectives, {sel} selected; in-process median "
                f"{statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
                f"({args.runs} runs)"
            )
    print(f"in-process worst over all pairs: {worst * 1000:.1f} ms (target <= 500 ms)")
    kg = Path(sys.executable).with_name("kg")
    for domain, a, b in PAIRS[:1]:
        walls = []
        for _ in range(args.cli_runs):
            t0 = time.perf_counter()
            subprocess.run(
                [str(kg), "perspectives", a, b, "-d", domain], check=True, capture_output=True
            )
            walls.append(time.perf_counter() - t0)
        print(
            f"CLI `kg perspectives {a} {b} -d {domain}`: median "
            f"{statistics.median(walls):.2f} s over {args.cli_runs} processes"
        )


if __name__ == "__main__":
    main()
