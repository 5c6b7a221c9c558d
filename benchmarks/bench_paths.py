"""`kg paths` latency between two concepts of the imported sample: the query in process (warm,
median of many runs) and the whole CLI call (a new process each time) separately.

Imports the shared sample into the configured instance (idempotent; other data stays).

    KG_BOLT_PORT=... python benchmarks/bench_paths.py [--runs 50]
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
from kg.queries.paths import paths_between
from kg.store import Store

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SAMPLE = SHARED / "perspectivebench" / "sample.jsonl"
PAIRS = [
    ("physics", "topic_3", "topic_13"),
    ("physics", "topic_17", "topic_6"),
    ("biology", "topic_7", "topic_23"),
    ("world_history", "topic_21", "topic_18"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=5)
    args = ap.parse_args()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    with Store() as store:
        store.ensure_schema()
        import_perspectivebench(store, [SAMPLE])
        for domain, a, b in PAIRS:

            def once(domain=domain, a=a, b=b) -> int:
                start = find_concept(store, a, domain=domain).chosen
                end = find_concept(store, b, domain=domain).chosen
                groups = paths_between(store, start.uid, end.uid, max_hops=3)
                return sum(len(g.paths) for g in groups)

            n = once()
            for _ in range(3):
                once()  # warm
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                once()
                times.append(time.perf_counter() - t0)
            print(
                f"{domain} {a} -> {b}: {n} paths; in-process median "
                f"{1000 * statistics.median(times):.1f} ms (p90 "
                f"{1000 * sorted(times)[int(0.9 * len(times))]:.1f} ms, {args.runs} runs)"
            )
    domain, a, b = PAIRS[1]
    cmd = [
        sys.executable,
        "-m",
        "kg.cli.main",
        "paths",
        a,
        b,
        "--domain",
        domain,
        "--format",
        "json",
    ]
    cli = []
    for _ in range(args.cli_runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        cli.append(time.perf_counter() - t0)
    print(
        f"whole CLI call `kg paths {a} {b} --domain {domain}`: median "
        f"{1000 * statistics.median(cli):.0f} ms ({args.cli_runs} runs, includes Python start-up"
        " and driver connect)"
    )
    print("target: in-process median <= 100 ms")


if __name__ == "__main__":
    main()
