"""Throughput of a fleet of endpoints: 2 servers against 1, side by side in one run. Prints figures.

    python benchmarks/fleet.py [--requests 160] [--latency 0.5] [--slots 4] [--rounds 3]

Each endpoint is the scripted test server (tests/llm_server.py) in a process of its own,
serving at most `--slots` requests at once with `--latency` seconds each (a model server with
N slots): one endpoint answers at most slots / latency requests per second. The client is the
product's (kg.llm.LLMClient) with a fleet of one endpoint, then of two, each capped at
`--slots` in flight; rounds alternate 1 and 2 so that both see the same machine load. Target:
2 endpoints >= 1.8x the throughput of 1 (the median of the rounds' ratios). Then a dead
endpoint beside the two live ones: every answer must arrive. The latency is long enough that
the client's and servers' CPU (a few ms per request) stays small on a busy 2-core machine:
the figures measure the endpoints, not the scheduler.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.llm import LLMClient, LLMConfig, LLMRequest  # noqa: E402
from kg.llm.fleet_file import Endpoint  # noqa: E402


def start_server(latency: float, slots: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "llm_server.py"),
            "--latency",
            str(latency),
            "--max-in-flight",
            str(slots),
            "--reply",
            "ok",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, f"http://127.0.0.1:{proc.stdout.readline().split()[1]}/v1"


def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def measure(urls: list[str], n: int, slots: int) -> tuple[float, int, list[dict]]:
    """(requests per second, answers, per-endpoint stats) for n requests over the fleet."""
    cfg = LLMConfig(
        model="test-model",
        cache=False,
        timeout_s=30,
        concurrency=slots,
        endpoints=[Endpoint(base_url=u, max_in_flight=slots) for u in urls],
    )
    client = LLMClient(cfg)
    reqs = [LLMRequest(messages=[{"role": "user", "content": f"q{i}"}]) for i in range(n)]
    t0 = time.perf_counter()
    replies = client.run_sync(client.complete_many(reqs, return_exceptions=True))
    elapsed = time.perf_counter() - t0
    answers = sum(1 for r in replies if not isinstance(r, BaseException))
    return n / elapsed, answers, client.endpoint_stats()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=160)
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--slots", type=int, default=4, help="requests each server serves at once")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    servers = [start_server(args.latency, args.slots) for _ in range(2)]
    a, b = (url for _, url in servers)
    try:
        ceiling = args.slots / args.latency
        print(
            f"{args.requests} requests per measurement, {args.latency * 1000:.0f} ms each, "
            f"{args.slots} slot(s) per endpoint (ceiling {ceiling:.0f} req/s per endpoint); "
            f"load {os.getloadavg()[0]:.1f}"
        )
        one: list[float] = []
        two: list[float] = []
        ratios: list[float] = []
        for r in range(args.rounds):
            rate1, got1, _ = measure([a], args.requests, args.slots)
            rate2, got2, stats2 = measure([a, b], args.requests, args.slots)
            one.append(rate1)
            two.append(rate2)
            ratios.append(rate2 / rate1)
            split = "/".join(str(s["answered"]) for s in stats2)
            print(
                f"round {r + 1}: 1 endpoint {rate1:6.1f} req/s ({got1} answers), "
                f"2 endpoints {rate2:6.1f} req/s ({got2} answers, split {split}), "
                f"ratio {rate2 / rate1:.2f}"
            )
        m1, m2, mr = statistics.median(one), statistics.median(two), statistics.median(ratios)
        print(
            f"median: 1 endpoint {m1:.1f} req/s, 2 endpoints {m2:.1f} req/s; median ratio "
            f"{mr:.2f} (target >= 1.8) {'OK' if mr >= 1.8 else 'MISSED'}"
        )
        dead = dead_url()
        rate3, got3, stats3 = measure([dead, a, b], args.requests, args.slots)
        by = {s["base_url"]: s for s in stats3}
        print(
            f"with a dead endpoint: {got3}/{args.requests} answers "
            f"({'none lost' if got3 == args.requests else 'LOST ANSWERS'}), {rate3:.1f} req/s; "
            f"dead endpoint: {by[dead]['calls']} request(s) tried, {by[dead]['cooldowns']} "
            f"cooldown(s); live: {by[a]['answered']} + {by[b]['answered']} answers"
        )
        print(f"load after: {os.getloadavg()[0]:.1f}")
    finally:
        for proc, _ in servers:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(10)


if __name__ == "__main__":
    main()
