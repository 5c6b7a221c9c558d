"""Offline `kg build` of the physics, biology and history chunks, end to end, against the
configured Neo4j (set KG_BOLT_PORT for your instance). Each domain runs in a fresh process with
an empty embedding cache, so times include model loading and UMAP's JIT compilation.

Prints per domain: total time and peak memory of the build process (targets for physics:
<= 120 s, <= 3 GB, with the ratio to that budget), time per stage, facts/s embedded, the Cypher
path-enumeration time and the summary counts.

    python benchmarks/build_offline.py [--domains physics biology history]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "perspectivebench" / "raw"
PALETTES = {
    "physics": "pyhsic_init_palette.json",
    "biology": "biology_init_palette.json",
    "history": "history_init_palette.json",
}
BUDGET_S, BUDGET_GB = 120.0, 3.0


def child(domain: str) -> None:
    from bench_cypher import run_auto_commit

    from construction.pipeline.config import BuildConfig
    from construction.pipeline.runner import build_domain
    from kg.store import Store

    name = f"bench_{domain}"
    with Store() as store:
        run_auto_commit(store, "delete_build_of_domain", domain=name)
        start = time.perf_counter()
        result = build_domain(
            store,
            BuildConfig(domain=name),
            chunk_paths=[DATA / f"{domain}_chunks.json"],
            palette_path=DATA / PALETTES[domain],
        )
        total = time.perf_counter() - start
        run_auto_commit(store, "delete_build_of_domain", domain=name)
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    print(
        json.dumps(
            {
                "domain": domain,
                "seconds": total,
                "peak_gb": peak_gb,
                "summary": result.summary,
                "stages": result.stages,
            }
        )
    )


def report(r: dict) -> None:
    st = {s["stage"]: s for s in r["stages"]}
    emb = st["embeddings"]
    n_emb = emb["counts"].get("facts_embedded", 0)
    print(
        f"\n== {r['domain']}: {r['seconds']:.1f} s end to end "
        f"(x{r['seconds'] / BUDGET_S:.2f} of the {BUDGET_S:.0f} s budget), "
        f"peak RSS {r['peak_gb']:.2f} GB (x{r['peak_gb'] / BUDGET_GB:.2f} of {BUDGET_GB} GB)"
    )
    print("   " + "  ".join(f"{s}={v['seconds']:.1f}s" for s, v in st.items()))
    print(
        f"   embedded {n_emb} facts in {emb['seconds']:.1f} s = "
        f"{n_emb / max(emb['seconds'], 1e-9):.1f} facts/s (cold cache, incl. model load)"
    )
    print(
        f"   path enumeration (Cypher, 1-3 hops + group rules): "
        f"{st['paths']['counts'].get('enumeration_ms', 0)} ms; paths stage "
        f"{st['paths']['seconds']:.2f} s"
    )
    keys = (
        "chunks",
        "facts",
        "merged_duplicates",
        "concepts",
        "outliers",
        "candidate_pairs",
        "edges",
        "paths",
        "perspectives",
        "questions",
    )
    print("   " + ", ".join(f"{k}={r['summary'][k]}" for k in keys))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="+", default=["physics", "biology", "history"])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for domain in args.domains:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "KG_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1"}
            # The server password file lives in the config dir, not the cache: keep it.
            out = subprocess.run(
                [sys.executable, __file__, "--child", domain],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        if out.returncode != 0:
            print(f"{domain}: failed\n{out.stderr[-2000:]}")
            continue
        report(json.loads(out.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    main()
