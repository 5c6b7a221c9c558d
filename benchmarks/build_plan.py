"""The figures `kg build --plan` estimates with when no earlier LLM build is in the graph, and how
long the plan takes.

    KG_BOLT_PORT=... python benchmarks/build_plan.py [--corpus demo|physics|...] [--keep]

The corpus (demo/build, or a PerspectiveBench domain's raw chunks in ../shared/data) is built
offline into a domain of its own; then, on that graph, every later model stage's own item query
and prompt builder (`Stage.pending_items`, `Stage.slots`, as `kg build --plan` uses them) give
the items the LLM route would ask about per chunk and the regex-tokenizer prompt tokens per call
(construction/pipeline/cost_plan.py: DEMO_PER_CHUNK, DEMO_PROMPT_TOKENS). Then `kg build --plan`
runs as a process of its own, for a fresh domain of the same chunks, against an endpoint where
nothing listens (a model call would fail it): its wall time, process start included. The
domains are removed at the end (unless --keep). Needs a running Neo4j.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RAW = ROOT.parent / "shared" / "data" / "perspectivebench" / "raw"
CORPORA = {
    "demo": (ROOT / "demo/build/chunks.json", ROOT / "demo/build/palette.json"),
    "physics": (RAW / "physics_chunks.json", RAW / "pyhsic_init_palette.json"),
    "biology": (RAW / "biology_chunks.json", RAW / "biology_init_palette.json"),
    "history": (RAW / "history_chunks.json", RAW / "history_init_palette.json"),
}
NOWHERE = "http://127.0.0.1:9/v1"  # the discard port: a call would fail, none is made
LATER = ("concepts", "relations", "questions", "evidence")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="demo")
    ap.add_argument("--keep", action="store_true", help="keep the built domains")
    args = ap.parse_args()

    from construction.pipeline.config import BuildConfig
    from construction.pipeline.context import StageReport
    from construction.pipeline.cost_plan import PlanContext
    from construction.pipeline.runner import BuildPlan, build_domain
    from construction.pipeline.stage import load_stage
    from kg import domains
    from kg.llm.tokens import count_tokens
    from kg.palette import stored_palette
    from kg.store import Store

    chunks, palette = CORPORA[args.corpus]
    built, fresh = f"build_plan_{args.corpus}", f"build_plan_{args.corpus}_fresh"
    store = Store()
    store.ensure_schema()
    t0 = time.perf_counter()
    config = BuildConfig(domain=built)
    result = build_domain(
        store,
        BuildPlan(
            config=config, chunk_paths=[chunks], palette_path=palette, replace=True, yes=True
        ),
    )
    n = result.summary["chunks"]
    print(f"setup: offline build of {args.corpus} ({n} chunks) in {time.perf_counter() - t0:.1f} s")
    ctx = PlanContext(
        store=store,
        config=config,
        palette=stored_palette(store, built),
        run_uid="plan",
        fresh=frozenset(LATER),
    )
    print("| stage | items | per chunk | prompt tokens per call (mean) |")
    print("|---|---:|---:|---:|")
    for name in LATER:
        stage = load_stage(name)
        items = stage.pending_items(ctx, StageReport(stage=name))
        prompts = stage.planned_prompts(ctx, items)
        mean = sum(map(count_tokens, prompts)) / max(1, len(prompts))
        print(f"| {name} | {len(items)} | {len(items) / n:.2f} | {mean:.0f} |")

    kg = [sys.executable, "-m", "kg.cli.main"]
    cmd = [*kg, "build", fresh, "--chunks", str(chunks), "--palette", str(palette)]
    cmd += ["--model", "plan-bench-model", "--base-url", NOWHERE, "--plan"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ | {"COLUMNS": "200"})
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"`kg build --plan` failed ({out.returncode}): {out.stderr[-2000:]}")
    line = next(x for x in out.stdout.splitlines() if x.startswith("plan:"))
    print(f"`kg build {fresh} ... --plan`: {dt:.2f} s (process start included)")
    print(f"  {line}")
    if not args.keep:
        for name in (built, fresh):
            domains.delete(store, name)
    store.close()


if __name__ == "__main__":
    main()
