"""A robustness profile of the small local model (issue 13). Prints the profile with the load.

    python benchmarks/local_model_profile.py [--questions 6] [--domain physics]
        [--samples 2] [--contexts 1] [--formulations all] [--decoders "temperature=0.2"]
        [--subset-percent 34] [--max-tokens 96] [--out out/local-model-profile]

The first N questions of one domain of ../shared/data/perspectivebench (sample.jsonl),
answered by SmolLM2-135M (`local/smollm2-135m`, temperature 0.8) in the Oracle setting with
`--samples`, `--contexts`, `--formulations` and `--decoders`, judged by the offline default
judge (edge-evidence); then `kg eval profile` (tables and plots written to --out).

Self-contained: a Neo4j with empty data and the local model server of its own on free ports
(benchmarks/own_servers.py), stopped at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from own_servers import load, own_servers  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--questions", type=int, default=6)
    ap.add_argument("--domain", default="physics")
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--contexts", type=int, default=1)
    ap.add_argument("--formulations", default="all")
    ap.add_argument("--decoders", default="temperature=0.2")
    ap.add_argument("--subset-percent", type=float, default=34.0)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "local-model-profile")
    args = ap.parse_args()

    from construction.perspectivebench.importer import import_perspectivebench
    from evaluation.profiles.decoders import parse_grid
    from evaluation.profiles.formulations import parse_names
    from evaluation.profiles.report import build_profile
    from evaluation.runs.runner import execute
    from evaluation.runs.spec import RunSpec
    from kg.llm import LLMConfig

    with own_servers(llm_threads=1) as own:
        store = own.store
        import_perspectivebench(store, [SHARED / "perspectivebench/sample.jsonl"])
        spec = RunSpec(
            kind="eval",
            run_id="local-profile",
            responder="llm",
            responder_llm=LLMConfig(
                model="local/smollm2-135m",
                role="responder",
                max_tokens=args.max_tokens,
                temperature=0.8,
                cache=False,
                concurrency=1,
            ),
            judge="edge-evidence",
            domains=[args.domain],
            limit=args.questions,
            samples=args.samples,
            contexts=args.contexts,
            formulations=parse_names(args.formulations) or None,
            decoders=parse_grid(args.decoders) or None,
            subset_percent=args.subset_percent,
        )
        t0 = time.monotonic()
        s = execute(store, spec)
        print(
            f"run {s.run_id}: {s.status}, {s.completed} answers judged, {s.failed} failed, "
            f"{s.calls} model calls in {time.monotonic() - t0:.0f} s; {load()}"
        )
        for e in s.errors[:3]:
            print(f"  ! {e[:200]}")
        rep = build_profile(store, "local-profile", args.out, ["csv", "md"], True, 50.0)
        (args.out / "profile.md").write_text(rep.markdown(), encoding="utf-8")
        for name, table in rep.tables.items():
            if name.endswith(("_frs", "_c3", "_formulations", "_decoders", "formulation_hop")):
                print(table.to_markdown())
        print(f"profile written to {args.out}; {load()}")


if __name__ == "__main__":
    main()
