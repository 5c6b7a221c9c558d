"""Wall time of `kg --help` and `kg db status` (against the configured running server).

Start-up cost is what a user feels on every command; this prints the median of `--runs` runs
of each. `--tree DIR` runs the CLI of another source tree (e.g. a `git archive` of an older
commit) with the same interpreter, to report a before/after ratio measured in the same run.

    python benchmarks/cli_startup.py [--runs 10] [--tree /tmp/old-checkout]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def wall(args: list[str], tree: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kg.cli.main", *args],
        env=env,
        check=True,
        capture_output=True,
        cwd=tree,
    )
    return time.perf_counter() - t0


COMMANDS = (("kg --help", ["--help"]), ("kg db status", ["db", "status"]))


def medians(trees: list[Path], runs: int) -> list[dict[str, float]]:
    """Runs alternate between the trees, so load on a shared machine hits both alike."""
    times: list[dict[str, list[float]]] = [{label: [] for label, _ in COMMANDS} for _ in trees]
    for label, args in COMMANDS:
        for tree in trees:
            wall(args, tree)  # warm the file cache and .pyc files
        for _ in range(runs):
            for i, tree in enumerate(trees):
                times[i][label].append(wall(args, tree))
    return [{k: statistics.median(v) for k, v in t.items()} for t in times]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--tree", type=Path, help="another source tree to compare against")
    a = ap.parse_args()
    results = medians([ROOT, *([a.tree] if a.tree else [])], a.runs)
    this, other = results[0], (results[1] if a.tree else None)
    for label, secs in this.items():
        line = f"{label:<14} {secs:6.3f} s (median of {a.runs})"
        if other:
            line += f"   {a.tree}: {other[label]:6.3f} s   ratio {secs / other[label]:.2f}"
        print(line)


if __name__ == "__main__":
    main()
