"""Offline `kg build` of the physics, biology and history chunks, end to end, against the
configured Neo4j (set KG_BOLT_PORT for your instance). Each domain runs in a fresh process with
an empty embedding cache, so times include model loading (and, with --reducer umap, numba's JIT
compilation unless NUMBA_CACHE_DIR holds it).

Prints per domain: total time and peak memory of the build process against the targets of
issue 12 (physics <= 30 s, biology and history <= 60 s, <= 2 GB; with the ratio to the budget),
the 1-minute load average before and after (the machine is shared), the CPU time of the
build process and wall/CPU time per stage (on a loaded machine the CPU time is what the build
cost itself), facts/s embedded, the Cypher path-enumeration time, the summary counts, and
`kg validate`'s verdict (groundedness, naming, duplicate questions, pass/warn/fail of every
check).

    python benchmarks/build_offline.py [--domains physics biology history] [--reducer umap] [--keep]
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
BUDGET_S = {"physics": 30.0, "biology": 60.0, "history": 60.0}
BUDGET_GB = 2.0


def child(domain: str, reducer: str, keep: bool) -> None:
    import bench_cypher

    from construction.pipeline.config import BuildConfig
    from construction.pipeline.runner import BuildPlan, build_domain
    from construction.quality.validate import validate_domain
    from kg.store import Store

    name = f"bench_{domain}"
    with Store() as store:
        bench_cypher.run_auto_commit(store, "delete_build_of_domain", domain=name)
        load_before = os.getloadavg()[0]
        cpu_before = _cpu_seconds()
        start = time.perf_counter()
        result = build_domain(
            store,
            BuildPlan(
                config=BuildConfig(domain=name, reducer=reducer),
                chunk_paths=[DATA / f"{domain}_chunks.json"],
                palette_path=DATA / PALETTES[domain],
            ),
        )
        total = time.perf_counter() - start
        cpu_total = _cpu_seconds() - cpu_before
        load_after = os.getloadavg()[0]
        report = validate_domain(store, name)
        if not keep:  # --keep leaves the build in the graph, to read its questions
            bench_cypher.run_auto_commit(store, "delete_build_of_domain", domain=name)
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    print(
        json.dumps(
            {
                "domain": domain,
                "seconds": total,
                "cpu_seconds": cpu_total,
                "peak_gb": peak_gb,
                "load": [load_before, load_after],
                "summary": result.summary,
                "stages": [s.model_dump(mode="json") for s in result.stages],
                "validation": report.model_dump(),
            }
        )
    )


def _cpu_seconds() -> float:
    """User + system CPU time of this process, all threads (what the build cost on its own)."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def report(r: dict) -> None:
    st = {s["stage"]: s for s in r["stages"]}
    emb = st["embeddings"]
    n_emb = emb["counts"].get("facts_embedded", 0)
    budget = BUDGET_S[r["domain"]]
    print(
        f"\n== {r['domain']}: {r['seconds']:.1f} s end to end "
        f"(x{r['seconds'] / budget:.2f} of the {budget:.0f} s target), "
        f"peak RSS {r['peak_gb']:.2f} GB (x{r['peak_gb'] / BUDGET_GB:.2f} of {BUDGET_GB} GB); "
        f"load average {r['load'][0]:.1f} -> {r['load'][1]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"   CPU time of the build process {r['cpu_seconds']:.1f} s (user + system, all "
        "threads; Neo4j's own CPU not included)"
    )
    print(
        "   per stage wall/CPU: "
        + "  ".join(f"{s}={v['seconds']:.1f}/{v.get('cpu_seconds', 0):.1f}s" for s, v in st.items())
    )
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
    facts = st["facts"]["counts"]
    print(
        f"   non-fact sentences dropped: {facts.get('non_facts', 0)} ("
        + ", ".join(
            f"{k.removeprefix('non_fact_')} {v}"
            for k, v in sorted(facts.items())
            if k.startswith("non_fact_")
        )
        + ")"
    )
    clu = st["clusters"]["counts"]
    print(
        f"   outlier share {clu.get('outlier_share_pct', 0)}%; relations: "
        f"{st['relations']['counts'].get('linked_pairs', 0)} linked pairs, "
        f"{st['relations']['counts'].get('pairs_both_directions', 0)} in both directions"
    )
    v = r["validation"]
    g = "n/a" if v["groundedness"] is None else f"{v['groundedness']:.1%}"
    n = "n/a" if v["naming"] is None else f"{v['naming']:.1%}"
    print(
        f"   kg validate: {v['status'].upper()}  groundedness {g}, naming {n}, "
        f"duplicate questions {v['duplicate_questions']}"
    )
    print("   " + "  ".join(f"{c['name']}={c['status']}" for c in v["checks"]))
    print(
        "   questions per hop 1/2/3: "
        + " / ".join(f"{h['questions']}" for h in v["hops"])
        + "  (paper's Table 1: "
        + " / ".join(f"{h['paper_questions']}" for h in v["hops"])
        + ")"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", nargs="+", default=["physics", "biology", "history"])
    ap.add_argument("--reducer", default="auto", choices=["auto", "spectral", "umap"])
    ap.add_argument("--keep", action="store_true", help="keep the builds (domain bench_<name>)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.reducer, args.keep)
        return
    print(
        f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
        f"(reducer {args.reducer})"
    )
    for domain in args.domains:
        with tempfile.TemporaryDirectory() as cache:
            # Embeddings start cold; numba's compiled UMAP code persists between builds as it
            # does for a user (the product's cache dir), so only the first build compiles it.
            from kg.settings import get_settings

            numba = os.environ.get("NUMBA_CACHE_DIR") or str(get_settings().cache_dir / "numba")
            env = {
                **os.environ,
                "KG_CACHE_DIR": cache,
                "HF_HUB_OFFLINE": "1",
                "NUMBA_CACHE_DIR": numba,
            }
            # The server password file lives in the config dir, not the cache: keep it.
            out = subprocess.run(
                [sys.executable, __file__, "--child", domain, "--reducer", args.reducer]
                + (["--keep"] if args.keep else []),
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
