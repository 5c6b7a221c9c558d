"""Import speed: 1,000 PerspectiveBench questions in one run of the batched importer, against a
naive importer that writes one question per transaction, measured in the same run.

The shared sample (139 questions) is replicated with new ids up to --questions. Each route starts
from an empty database. WIPES THE DATABASE of the configured instance.

    KG_BOLT_PORT=... python benchmarks/bench_import.py [--questions 1000]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

from construction.perspectivebench.importer import (
    import_perspectivebench,
    plan_in_tx,
    write_plan,
)
from construction.perspectivebench.validation import validate_files
from kg.store import Store

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SAMPLE = SHARED / "perspectivebench" / "sample.jsonl"


def replicate(sample: Path, n: int, out: Path, *, copy_domains: bool = False) -> None:
    """`n` questions cycling through `sample`, each with a new id. With `copy_domains` every
    further pass over the sample goes into domains of its own (`physics_1`, ...), so concepts,
    facts and paths grow with the questions instead of being shared by the copies."""
    lines = [json.loads(x) for x in sample.read_text(encoding="utf-8").splitlines()]
    with out.open("w", encoding="utf-8") as fh:
        for i in range(n):
            obj = dict(lines[i % len(lines)])
            obj["id"] = 100_000 + i
            copy = i // len(lines)
            if copy_domains and copy:
                obj["domain"] = f"{obj['domain']}_{copy}"
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")


def naive_import(store: Store, path: Path) -> int:
    """The baseline: same validation and queries, but one transaction per question."""
    result = validate_files([path])
    for item in result.questions:
        store.transaction(
            lambda tx, item=item: write_plan(
                tx, plan_in_tx(tx, [item], source="naive", palette=None)
            )
        )
    return len(result.questions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--sample", type=Path, default=SAMPLE)
    args = ap.parse_args()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp, Store() as store:
        data = Path(tmp) / "questions.jsonl"
        replicate(args.sample, args.questions, data)
        store.ensure_schema()
        store.wipe()
        import_perspectivebench(store, [args.sample])  # warm the query cache, then start clean
        store.wipe()

        t0 = time.perf_counter()
        report = import_perspectivebench(store, [data])
        batched = time.perf_counter() - t0
        counts = store.node_counts()
        store.wipe()

        t0 = time.perf_counter()
        n = naive_import(store, data)
        naive = time.perf_counter() - t0
        same = store.node_counts() == counts
        store.wipe()

    q = report.questions_written
    print(f"questions: {q} (file {data.name}, replicated from {args.sample.name})")
    print(
        f"batched importer (one transaction, UNWIND batches): {batched:.2f} s, "
        f"{q / batched:,.0f} questions/s"
    )
    print(
        f"naive importer (one transaction per question):      {naive:.2f} s, "
        f"{n / naive:,.0f} questions/s"
    )
    print(f"speed-up batched vs naive: {naive / batched:.1f}x; same node counts: {same}")
    print(f"target: 1,000 questions in <= 10 s -> {'met' if batched <= 10 else 'NOT met'}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
