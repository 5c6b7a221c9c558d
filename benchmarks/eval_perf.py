"""Evaluation performance against the local test server (issue 4 targets). Prints figures.

    KG_BOLT_PORT=... python benchmarks/eval_perf.py [--questions 1000] [--latency 0.1]
                                                    [--concurrency 32] [--keep]

0. Named baseline: the bare LLM client making the same number of calls at the same
   concurrency against the same server (no prompts, judging, cache or graph writes).
1. 1,000 synthetic questions x (answer + path judge + faithfulness judge) with 100 ms latency
   per call and at most 32 requests in flight (responder and judge share the limit): the time
   against the limit calls x latency / concurrency (target ratio <= 1.5).
2. The same evaluation again under a new run id with the warm response cache: zero calls,
   target <= 10 s.
3. Scoring and the full report (tables in CSV/JSON/MD and both PNG plots) for the 1,000
   questions: target <= 2 s.
4. Peak memory of the process (target <= 1 GB); the test server runs in its own process.

The synthetic questions go into their own domain through the PerspectiveBench importer; the
benchmark removes them and its runs at the end (unless --keep). Needs a running Neo4j.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

DOMAIN = "eval_bench_synthetic"
WORDS = (
    "flow gate valve pressure sensor signal pump reservoir channel filter controller "
    "level report command schedule season yield soil root water crop"
).split()


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def synthetic_line(i: int, rng: random.Random) -> dict:
    hop = 1 + i % 3
    n_topics = 8

    def path(k: int) -> dict:
        keys = [
            "topic_0",
            *[f"topic_{rng.randrange(1, n_topics - 1)}" for _ in range(hop - 1)],
            f"topic_{n_topics - 1}",
        ]
        for j in range(1, len(keys) - 1):  # no repeated concept in a path
            while keys[j] in keys[:j]:
                keys[j] = f"topic_{rng.randrange(1, n_topics - 1)}"
        labels = [f"REL_{k}_{h}" for h in range(hop)]
        sig = keys[0] + "".join(
            f" -- {lab} --> {key}" for lab, key in zip(labels, keys[1:], strict=True)
        )
        entry = {f"path_{k}": sig}
        if hop == 1:
            entry["reason"] = sentence(rng)
        else:
            for a, b in zip(keys, keys[1:], strict=False):
                entry[f"{a.split('_')[1]}_reason_{b.split('_')[1]}"] = sentence(rng)
        return entry

    paths = [path(k) for k in range(4)]
    pool = {
        f"topic_{t}": {"Summary": sentence(rng), "Key Evidence": [sentence(rng) for _ in range(3)]}
        for t in range(n_topics)
    }
    return {
        "id": i,
        "domain": DOMAIN,
        "perspective_theme": f"Theme{i % 5}",
        "perspective_target_question": f"Question {i}: " + sentence(rng),
        "perspective_valid_paths": paths[:2],
        "focused_evidence": [
            pool["topic_0"]["Key Evidence"][0],
            pool[f"topic_{n_topics - 1}"]["Key Evidence"][1],
        ],
        "valid_paths": paths,
        "full_content_pool": pool,
    }


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def write_synthetic(path: Path, n: int, domain: str = DOMAIN) -> Path:
    """`n` synthetic questions of `domain` as a PerspectiveBench JSONL file (seeded)."""
    rng = random.Random(0)
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps(synthetic_line(i, rng) | {"domain": domain}) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--keep", action="store_true", help="keep the synthetic data and runs")
    args = ap.parse_args()

    import bench_cypher

    from construction.perspectivebench.importer import import_perspectivebench
    from evaluation.models import Setting
    from evaluation.reporting.report import build_report
    from evaluation.runs.runner import execute
    from evaluation.runs.spec import RunSpec
    from kg.llm import LLMClient, LLMConfig, LLMRequest
    from kg.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="eval-bench-"))
    data = write_synthetic(tmp / "synthetic.jsonl", args.questions)
    store = Store()
    store.ensure_schema()
    t0 = time.perf_counter()
    import_perspectivebench(store, [data])
    print(
        f"setup: imported {args.questions} synthetic questions in "
        f"{time.perf_counter() - t0:.1f} s (not timed below)"
    )

    # the test server runs in a process of its own, like a real endpoint
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "llm_server.py"),
            "--latency",
            str(args.latency),
            "--eval-model",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    base_url = f"http://127.0.0.1:{server.stdout.readline().split()[1]}/v1"

    def spec(run_id: str) -> RunSpec:
        def cfg(role: str):
            return LLMConfig(
                model="test-model",
                base_url=base_url,
                role=role,
                cache=True,
                cache_path=tmp / "llm-cache.sqlite",
                concurrency=args.concurrency,
                timeout_s=30,
            )

        return RunSpec(
            kind="eval",
            run_id=run_id,
            responder="llm",
            responder_llm=cfg("responder"),
            judge="llm",
            judge_llm=cfg("judge"),
            relevancy_n=0,
            setting=Setting.oracle,
            domains=[DOMAIN],
            limit=args.questions,
            batch_size=200,
            shared_concurrency=args.concurrency,
            workers=2 * args.concurrency,
        )

    runs = ["bench-perf-cold", "bench-perf-warm"]
    try:
        # named baseline: the bare client making as many calls at the same concurrency
        bare = LLMClient(
            LLMConfig(
                model="test-model",
                base_url=base_url,
                cache=False,
                concurrency=args.concurrency,
                timeout_s=30,
            )
        )
        n_calls = 3 * args.questions
        reqs = [
            LLMRequest(
                messages=[
                    {"role": "system", "content": "Answer the user's question"},
                    {"role": "user", "content": f"Question: q{i}?"},
                ]
            )
            for i in range(n_calls)
        ]
        t0 = time.perf_counter()
        bare.run_sync(bare.complete_many(reqs))
        bare_s = time.perf_counter() - t0
        limit = n_calls * args.latency / args.concurrency
        print(
            f"0. baseline, the bare LLM client: {n_calls} calls at concurrency "
            f"{args.concurrency}: {bare_s:.2f} s; ratio to the limit {bare_s / limit:.2f}"
        )
        cpu0, load0 = _cpu(), os.getloadavg()[0]
        cold = execute(store, spec(runs[0]))
        cpu, load1 = _cpu() - cpu0, os.getloadavg()[0]
        calls = cold.calls
        limit = calls * args.latency / args.concurrency
        print(
            f"1. cold run: {cold.completed} questions, {calls} calls "
            f"(answer + path judge + faithfulness judge), {cold.elapsed_s:.2f} s; "
            f"limit calls x latency / concurrency = {calls} x {args.latency} / "
            f"{args.concurrency} = {limit:.2f} s; ratio {cold.elapsed_s / limit:.2f} "
            f"(target <= 1.5); {cold.elapsed_s / bare_s:.2f} x the bare-client baseline; "
            f"status={cold.status}"
        )
        print(f"   of which setup (questions, contexts, run record): {cold.setup_s:.2f} s")
        print(
            f"   CPU time of this process during the run: {cpu:.2f} s "
            f"({cpu / max(calls, 1) * 1000:.2f} ms per call); load average "
            f"{load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs (other processes compete)"
        )
        warm = execute(store, spec(runs[1]))
        print(
            f"2. warm-cache rerun: {warm.completed} questions, {warm.calls} calls "
            f"to the server, {warm.cached_calls} from cache, {warm.elapsed_s:.2f} s "
            f"(target: 0 calls, <= 10 s)"
        )
        t0 = time.perf_counter()
        rep = build_report(store, [runs[0]], tmp / "report")
        (tmp / "report" / "report.md").write_text(rep.markdown())
        dt = time.perf_counter() - t0
        n = rep.tables["overall"].rows[0]["n"]
        print(
            f"3. scoring + full report ({n} questions, {len(rep.files)} files incl. 2 PNG "
            f"plots): {dt:.2f} s (target <= 2 s)"
        )
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        if not args.keep:
            bench_cypher.run_auto_commit(store, "eval_cleanup", runs=runs, domain=DOMAIN)
        store.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"4. peak memory (max RSS of this process): {peak_mb:.0f} MB (target <= 1024 MB)")


if __name__ == "__main__":
    main()
