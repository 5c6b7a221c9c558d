"""How long `kg eval plan` takes for the paper's sweep size (issue 29 target: <= 5 s, no call).

    KG_BOLT_PORT=... python benchmarks/eval_plan.py [--questions 1024] [--settings ...] [--keep]

N synthetic questions (benchmarks/eval_perf.py's generator, in a domain of their own) are
imported, then `kg eval plan` runs as a process of its own for each setting (an LLM responder
and an LLM judge with relevancy) against an endpoint where nothing listens: any model call
would fail the command. Printed: the wall time of each plan (process start included), the
calls and the estimate it gives, and the slowest. The questions are removed at the end
(unless --keep). Needs a running Neo4j.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

DOMAIN = "eval_plan_synthetic"
SETTINGS = ("base", "oracle", "noisy", "rag-bm25", "rag-dense")
NOWHERE = "http://127.0.0.1:9/v1"  # the discard port: a call would fail, none is made


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=1024)
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--keep", action="store_true", help="keep the synthetic questions")
    args = ap.parse_args()

    import bench_cypher
    from eval_perf import write_synthetic

    from construction.perspectivebench.importer import import_perspectivebench
    from kg.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="eval-plan-bench-"))
    data = write_synthetic(tmp / "synthetic.jsonl", args.questions, DOMAIN)
    store = Store()
    store.ensure_schema()
    t0 = time.perf_counter()
    import_perspectivebench(store, [data])
    dt = time.perf_counter() - t0
    print(f"setup: imported {args.questions} synthetic questions in {dt:.1f} s")
    script = Path(sys.executable).parent / "kg"  # the installed command, as a user runs it
    kg = [str(script)] if script.exists() else [sys.executable, "-m", "kg.cli.main"]
    env = os.environ | {"PLAN_BENCH_KEY": "not-needed"}
    t0 = time.perf_counter()
    subprocess.run([*kg, "eval", "plan", "--help"], capture_output=True, check=True)
    dt = time.perf_counter() - t0
    print(f"reference: `kg eval plan --help` (process start and CLI) {dt:.2f} s")
    slowest = 0.0
    try:
        for setting in args.settings.split(","):
            cmd = [
                *kg,
                "eval",
                "plan",
                "--model",
                "bench-responder",
                "--judge",
                "bench-judge",
                "--base-url",
                NOWHERE,
                "--api-key-env",
                "PLAN_BENCH_KEY",
                "--setting",
                setting,
                "--domain",
                DOMAIN,
                "--json",
            ]
            t0 = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            dt = time.perf_counter() - t0
            if res.returncode != 0:
                raise SystemExit(f"{setting}: kg eval plan failed:\n{res.stdout}\n{res.stderr}")
            plan = json.loads(res.stdout)
            slowest = max(slowest, dt)
            calls = {r["role"]: r["calls"] for r in plan["roles"]}
            print(
                f"{setting:>9}: {dt:.2f} s — {plan['answers']} answers, calls {calls}, "
                f"{sum(r['prompt_tokens'] for r in plan['roles']):,} prompt tokens"
            )
        print(
            f"slowest plan of {args.questions} questions: {slowest:.2f} s per setting "
            "(target <= 5 s, process start included)"
        )
    finally:
        if not args.keep:
            bench_cypher.run_auto_commit(store, "eval_cleanup", runs=[], domain=DOMAIN)
        store.close()


if __name__ == "__main__":
    main()
