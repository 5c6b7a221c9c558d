"""`kg db up` from a cold start (jars already resolved) and `kg db status` on a running server.

Targets (issue 2): up <= 30 s on a 2-core machine, status <= 1 s. Uses its own instance
(default Bolt port 7697) so it never stops a server someone else is using.

    python benchmarks/db_startup.py [--runs 3] [--bolt-port 7697]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def kg(*args: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kg.cli.main", *args], env=env, check=True, capture_output=True
    )
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bolt-port", type=int, default=7697)
    a = ap.parse_args()
    env = {**os.environ, "KG_BOLT_PORT": str(a.bolt_port), "KG_HTTP_PORT": str(a.bolt_port + 1)}
    kg("db", "up", env=env)  # resolves jars on a fresh machine; not timed
    ups, statuses = [], []
    for _ in range(a.runs):
        kg("db", "down", env=env)
        ups.append(kg("db", "up", env=env))
        statuses += [kg("db", "status", env=env) for _ in range(5)]
    from kg.settings import get_settings
    from kg.store import Store

    with Store(get_settings(bolt_port=a.bolt_port)) as store:
        store.node_counts()
        t = []
        for _ in range(20):
            t0 = time.perf_counter()
            store._gds = None  # the status's queries: GDS asked afresh, as by a new CLI call
            store.query("core/server_info"), store.gds_version(), store.node_counts()
            t.append(time.perf_counter() - t0)
    kg("db", "down", env=env)
    print(
        f"kg db up (cold start, jars resolved): median {statistics.median(ups):.1f} s, "
        f"max {max(ups):.1f} s over {a.runs} runs (target <= 30 s)"
    )
    print(
        f"kg db status (whole CLI call): median {statistics.median(statuses):.2f} s, "
        f"max {max(statuses):.2f} s over {len(statuses)} calls (target <= 1 s)"
    )
    print(f"status queries in-process: median {statistics.median(t) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
