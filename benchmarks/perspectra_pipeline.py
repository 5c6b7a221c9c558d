"""PERSPECTRA performance: import, task building, offline baselines (targets from issue 6).

    KG_BOLT_PORT=... python benchmarks/perspectra_pipeline.py [--file Perspectra.json] [--fresh]

Prints each figure with its target and the ratio figure/target (< 1 = within budget):
- import of Perspectra.json (validate + one-transaction MERGE), target 10 s; first import on a
  graph without PERSPECTRA data when --fresh (which deletes PERSPECTRA nodes only), then re-import;
- building 3 x 500 task items (corpus read from the graph + build + write), target 5 s;
- the three offline baselines over the 1,500 items including embeddings with a cold cache
  (a fresh temporary embedding cache), target 60 s; the warm-cache rerun is printed next to it.
Needs the shared data file; the product never does.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from construction.perspectra.graph_writer import (  # noqa: E402
    delete_perspectra,
    graph_counts,
    write_import,
)
from construction.perspectra.release_import import release_rows  # noqa: E402
from construction.perspectra.tasks.builders import build_items  # noqa: E402
from construction.perspectra.tasks.store import write_items  # noqa: E402
from evaluation.perspectra.baselines import t1_baseline, t2_baseline, t3_baseline  # noqa: E402
from evaluation.perspectra.scoring import parse_for, score  # noqa: E402
from kg.embeddings import Embedder  # noqa: E402
from kg.queries.perspectra_corpus import load_corpus  # noqa: E402
from kg.queries.task_items import load_items  # noqa: E402
from kg.store import Store  # noqa: E402
from kg.task_items import TASKS, TaskSetSpec  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared/data/perspectra/Perspectra.json"


def line(name: str, seconds: float, target: float | None = None, extra: str = "") -> None:
    """One figure; wall-clock seconds, so other load on the machine shows up here."""
    budget = f"  target {target:>4.0f} s  ratio {seconds / target:.2f}" if target else ""
    print(f"{name:<48} {seconds:7.2f} s{budget}{extra}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--fresh", action="store_true", help="delete PERSPECTRA nodes first")
    ap.add_argument("--n", type=int, default=500)
    args = ap.parse_args()

    with Store() as store:
        if args.fresh:
            delete_perspectra(store)
        t0 = time.perf_counter()
        rows = release_rows(args.file)
        t_validate = time.perf_counter() - t0
        write_import(store, rows)
        t_import = time.perf_counter() - t0
        line(
            "import Perspectra.json (validate + write)",
            t_import,
            10,
            f"   [validation alone {t_validate:.2f} s]",
        )
        t0 = time.perf_counter()
        write_import(store, release_rows(args.file))
        line("re-import (idempotent MERGE)", time.perf_counter() - t0, 10)
        print(f"{'':<48} counts {graph_counts(store)}")

        t0 = time.perf_counter()
        corpus = load_corpus(store)
        builds = {}
        for task in TASKS:
            items = build_items(corpus, TaskSetSpec(task=task, n=args.n))
            write_items(store, items)
            builds[task] = items[0].task_set
        line(f"build 3 x {args.n} task items (read + build + write)", time.perf_counter() - t0, 5)
        items = {t: load_items(store, b) for t, b in builds.items()}

        with tempfile.TemporaryDirectory() as tmp:
            emb = Embedder(cache_path=Path(tmp) / "bench.sqlite")
            for label, target in (("cold embedding cache", 60.0), ("warm embedding cache", None)):
                t0, c0 = time.perf_counter(), time.process_time()
                results = {
                    "t1": t1_baseline(items["t1"], corpus, emb.encode, make_items=build_items),
                    "t2": t2_baseline(items["t2"], emb.encode),
                    "t3": t3_baseline(items["t3"], corpus, emb.encode),
                }
                line(
                    f"3 baselines over {3 * args.n} items, {label}",
                    time.perf_counter() - t0,
                    target,
                    f"   [CPU time {time.process_time() - c0:.1f} s on "
                    f"{os.cpu_count()} cores, load avg {os.getloadavg()[0]:.1f}]",
                )
        for task, res in results.items():
            s = score(
                items[task],
                [parse_for(i, r) for i, r in zip(items[task], res.replies, strict=True)],
            ).summary
            shown = {
                k: round(v, 3)
                for k, v in s.items()
                if k in ("accuracy", "nie", "mae", "stance_accuracy", "concession_share_errors")
            }
            print(f"  {task} {res.name}: {shown}")


if __name__ == "__main__":
    main()
