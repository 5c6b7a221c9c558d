"""The LLM judge, end to end with a real model: its agreement with gold labels, its failed
judgements and its self-agreement, through the real `kg judge validate` command.

    KG_BOLT_PORT=... python benchmarks/llm_judge_validity.py [--judge local/smollm2-135m]
        [--base-url URL] [--granularity path] [--votes 3] [--limit 4]
        [--gold FILE] [--sample FILE] [--store]

The gold split (default ../shared/data/judge-gold/natural-dev.jsonl: natural-style answers with
blind majority labels) needs its questions in the graph: ../shared/data/perspectivebench/
sample.jsonl is imported first (idempotent). Then this runs, as a researcher would,

    kg judge validate --gold GOLD --judge JUDGE --judge-granularity G --judge-votes N
                      --limit K --format json [--base-url URL] [--no-store]

and prints Cohen's kappa against the gold (with its bootstrap CI), agreement, precision and
recall of "present", how many answers and path judgements failed (no usable verdict: left out,
never read as absent), the judge's self-agreement across its votes (Fleiss' kappa, pairwise
agreement, ties) and the wall time.

`local/<model>` without --base-url starts the product's local model server (`kg llm up`);
with --base-url any OpenAI-compatible server answers (a GPT-class endpoint, vLLM, a llama.cpp
server). The 135M local model's figures are poor: the point is that the route runs and is
measured. Figures depend on machine load (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))

from construction.perspectivebench.importer import import_perspectivebench  # noqa: E402
from kg.store import Store  # noqa: E402


def ci(c: dict) -> str:
    mean = c.get("mean")
    if mean is None:
        return "undefined"
    low, high = c.get("low"), c.get("high")
    return f"{mean:.2f}" + (f" [{low:.2f}, {high:.2f}]" if low is not None else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", default="local/smollm2-135m")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--granularity", default="path", choices=["answer", "path"])
    ap.add_argument("--votes", type=int, default=3)
    ap.add_argument("--limit", type=int, default=4, help="gold answers judged (round robin)")
    ap.add_argument("--gold", type=Path, default=SHARED / "judge-gold" / "natural-dev.jsonl")
    ap.add_argument("--sample", type=Path, default=SHARED / "perspectivebench" / "sample.jsonl")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per request")
    ap.add_argument("--store", action="store_true", help="keep the validation in the graph")
    args = ap.parse_args()

    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with Store() as store:
        store.ensure_schema()
        import_perspectivebench(store, [args.sample], skip_invalid=True)
    kg = Path(sys.executable).with_name("kg")
    cmd = [
        str(kg) if kg.exists() else (shutil.which("kg") or "kg"),
        "judge",
        "validate",
        "--gold",
        str(args.gold),
        "--judge",
        args.judge,
        "--judge-granularity",
        args.granularity,
        "--judge-votes",
        str(args.votes),
        "--limit",
        str(args.limit),
        "--format",
        "json",
        "--no-cache",
        "--store" if args.store else "--no-store",
    ]
    if args.base_url:
        cmd += ["--base-url", args.base_url]
    if args.timeout:
        cmd += ["--timeout", str(args.timeout)]
    print("$ " + " ".join(cmd[1:]).replace(str(ROOT.parent), ".."), flush=True)
    started = time.perf_counter()
    done = subprocess.run(cmd, text=True, capture_output=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit(f"kg judge validate failed (exit {done.returncode}) after {wall:.0f} s")
    v = json.loads(done.stdout)
    o = v["overall"]
    print(f"\njudge {v['judge']} on {Path(v['gold_file']).name} ({wall:.0f} s wall)")
    print(f"  answers judged        {o['answers']} (failed: {len(v['errors'])})")
    print(f"  path decisions        {o['paths']} (failed judgements: {v['failed_paths']})")
    print(f"  Cohen's kappa         {ci(o['kappa'])}")
    print(f"  agreement             {ci(o['agreement'])} %")
    print(f"  precision / recall    {ci(o['precision'])} / {ci(o['recall'])}")
    print(f"  judge / gold present  {o['judge_present']} / {o['gold_present']}")
    for g in v.get("by_style", []):
        print(f"  style {g['group']:<16} kappa {ci(g['kappa'])} on {g['paths']} paths")
    sa = v.get("self_agreement")
    if sa:
        kappa = f"{sa['fleiss_kappa']:.2f}" if sa["fleiss_kappa"] is not None else "undefined"
        agree = f"{sa['agreement']:.1f}%" if sa["agreement"] is not None else "n/a"
        print(
            f"  self-agreement        Fleiss' kappa {kappa}, pairwise {agree} over "
            f"{sa['decisions']} decisions x {sa['votes']} votes; {sa['unanimous']} unanimous, "
            f"{sa['ties']} ties (resolved to absent), {sa['failed_votes']} failed votes"
        )
    for err in v["errors"][:5]:
        print(f"  ! {err[:300]}")


if __name__ == "__main__":
    main()
