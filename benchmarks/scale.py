"""Scale: import, offline eval of three settings and the report at 1,000 and 10,000 questions
(issue 29 targets: every step grows at most linearly, <= 11x from 1,000 to 10,000 questions;
peak memory of the 10,000-question eval <= 2 GB).

    KG_BOLT_PORT=... python benchmarks/scale.py [--sizes 1000,10000]
        [--settings base,oracle,noisy] [--steps import,eval,report] [--responder cover-all]
        [--judge edge-evidence] [--keep]

The shared sample (139 PerspectiveBench questions) is replicated with new ids up to each size;
every further pass over the sample goes into domains of its own (`physics_1`, ...), so the graph
really holds that many questions, and concepts, facts and paths grow with them. Each step runs
as the `kg` command in a process of its own, as a user runs it: `kg import perspectivebench`,
`kg eval run` per setting (offline responder and judge: no model is called), and
`kg eval report` of the runs with its tables and plots. Printed per step: the wall time and the
peak RSS of that process (`wait4`), at each size, and the ratio of the largest size to the
smallest. Neo4j runs in its own process with a fixed heap (`KG_HEAP_SIZE`, printed); its memory
is not in these figures.

The encoder's disk cache and the server's query cache are warmed first with the sample itself
(the replicated texts repeat, so whichever size ran first would otherwise pay for every
embedding). WIPES THE DATABASE of the configured instance before each size and at the end
(unless --keep, which leaves the largest size's graph and runs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_import import SAMPLE, replicate  # noqa: E402

LINEAR = 11.0  # the target: at most this ratio per 10x questions
MEMORY_MB = 2048.0


def kg_command() -> list[str]:
    """The installed `kg` command beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "kg"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kg.cli.main"]


def measured(cmd: list[str], log: Path) -> tuple[float, float, float]:
    """Run `cmd` (output to `log`); its wall time and CPU time (user + system, its children
    included) in seconds, and its peak RSS in MB (Linux)."""
    t0 = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=os.environ)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{log.read_text()[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def steps(
    n: int, data: Path, settings: list[str], args: argparse.Namespace, out: Path
) -> list[tuple[str, list[str]]]:
    kg = kg_command()
    run = [*kg, "eval", "run", "--responder", args.responder, "--judge", args.judge]
    runs = [f"scale-{n}-{s}" for s in settings]
    return [
        ("import", [*kg, "import", "perspectivebench", str(data)]),
        *[
            (f"eval {s}", [*run, "--setting", s, "--run-id", r])
            for s, r in zip(settings, runs, strict=True)
        ],
        ("report", [*kg, "eval", "report", *runs, "--out", str(out / f"report-{n}")]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", help="question counts, smallest first")
    ap.add_argument("--settings", default="base,oracle,noisy")
    ap.add_argument("--responder", default="cover-all", help="an offline baseline responder")
    ap.add_argument("--judge", default="edge-evidence", help="an offline judge")
    ap.add_argument("--sample", type=Path, default=SAMPLE)
    ap.add_argument(
        "--steps", default="import,eval,report", help="which steps to measure (in this order)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the last size's graph and runs")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    settings = args.settings.split(",")

    from kg.settings import get_settings
    from kg.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    print(f"Neo4j heap (KG_HEAP_SIZE): {get_settings().heap_size}; logs and reports in {tmp}")
    results: dict[int, dict[str, tuple[float, float, float]]] = {}
    with Store() as store:
        store.ensure_schema()
        store.wipe()
        # warm-up: the sample itself through every step (encoder cache, query plans)
        for name, cmd in steps(
            len(args.sample.read_text().splitlines()), args.sample, settings, args, tmp
        ):
            measured(cmd, tmp / f"warm-{name.replace(' ', '-')}.log")
        for n in sizes:
            store.wipe()
            data = tmp / f"questions-{n}.jsonl"
            replicate(args.sample, n, data, copy_domains=True)
            results[n] = {}
            wanted = args.steps.split(",")
            for name, cmd in steps(n, data, settings, args, tmp):
                if name.split()[0] not in wanted:
                    continue
                wall, cpu, peak = measured(cmd, tmp / f"{n}-{name.replace(' ', '-')}.log")
                results[n][name] = (wall, cpu, peak)
                load = os.getloadavg()[0]
                print(
                    f"{n:>6} {name:<14} {wall:8.1f} s wall {cpu:8.1f} s CPU {peak:6.0f} MB"
                    f"  (load {load:.1f})",
                    flush=True,
                )
        if not args.keep:
            store.wipe()

    lo, hi = sizes[0], sizes[-1]
    print(
        f"\nstep           {lo:>7} s {hi:>8} s  ratio  {lo:>5} CPU {hi:>6} CPU  ratio"
        f"  {lo:>6} MB {hi:>7} MB"
    )
    worst = 0.0
    for name in results[lo]:
        (t_lo, c_lo, m_lo), (t_hi, c_hi, m_hi) = results[lo][name], results[hi][name]
        worst = max(worst, t_hi / t_lo, c_hi / c_lo)
        print(
            f"{name:<14} {t_lo:9.1f} {t_hi:10.1f} {t_hi / t_lo:6.2f}x {c_lo:9.1f} {c_hi:10.1f}"
            f" {c_hi / c_lo:6.2f}x {m_lo:9.0f} {m_hi:10.0f}"
        )
    print(
        f"largest ratio (wall or CPU) {worst:.2f}x for {hi / lo:g}x questions "
        f"(target <= {LINEAR:g}x per 10x)"
    )
    peaks = [m for name, (_, _, m) in results[hi].items() if name.startswith("eval")]
    if peaks:  # no eval step when --steps leaves it out
        print(
            f"peak memory of the {hi:,}-question eval {max(peaks):.0f} MB "
            f"(target <= {MEMORY_MB:.0f} MB)"
        )


if __name__ == "__main__":
    main()
