"""Perspective fidelity on an imported benchmark: for each question, is its published target
set one of the candidate perspectives of its concept sequence, and is it among the selected
ones; by domain and hop and overall, with perspectives proposed per concept sequence against
the distinct target sets (themes) the benchmark asks there. Also the largest path overlap
(Jaccard) between two distinct candidates, which says whether a GDS similarity merge would
change anything.

Imports the file(s) into the configured instance first (idempotent; other data stays).

    KG_BOLT_PORT=... python benchmarks/perspective_fidelity.py [FILE.jsonl ...] [--by category]
"""

from __future__ import annotations

import argparse
import json
import logging
from itertools import combinations
from pathlib import Path

from construction.perspectivebench.importer import import_perspectivebench
from kg.palette import load_palette
from kg.queries.perspective_fidelity import perspective_fidelity
from kg.queries.perspectives import candidates, jaccard
from kg.store import Store

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "perspectivebench"
PALETTES = {
    "physics": SHARED / "raw" / "pyhsic_init_palette.json",
    "biology": SHARED / "raw" / "biology_init_palette.json",
    "world_history": SHARED / "raw" / "history_init_palette.json",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, default=[SHARED / "sample.jsonl"])
    ap.add_argument("--by", choices=["label", "category"], default="label")
    args = ap.parse_args()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    palettes = {d: load_palette(p).category_map() for d, p in PALETTES.items() if p.exists()}
    with Store() as store:
        store.ensure_schema()
        import_perspectivebench(store, args.files, domain_palettes=palettes)
        domains = sorted(
            {json.loads(line)["domain"] for f in args.files for line in f.open(encoding="utf-8")}
        )
        report = perspective_fidelity(store, domains, by=args.by, palettes=palettes)
        print(f"grouped by {args.by}; selection rule: kg.queries.perspectives.select")
        print(
            f"{'domain':<14}{'hop':>4}{'qs':>5}{'candidate':>16}{'label|cat':>16}"
            f"{'selected':>16}{'seqs':>6}{'proposed/asked':>16}"
        )
        for r in report.rows:
            print(
                f"{r.domain:<14}{r.hop or 'all':>4}{r.questions:>5}"
                f"{f'{r.candidate} ({r.candidate_share:.1%})':>16}"
                f"{f'{r.either} ({r.either_share:.1%})':>16}"
                f"{f'{r.selected} ({r.selected_share:.1%})':>16}"
                f"{r.sequences:>6}{f'{r.proposed}/{r.asked}':>16}"
            )
        print("not a candidate:", ", ".join(report.not_candidate) or "-")
        print("candidate, not selected:", ", ".join(report.not_selected) or "-")
        worst = 0.0
        for d in domains:
            by_seq: dict[tuple, list] = {}
            for p in candidates(store, d, by=args.by, palette=palettes.get(d)):
                if not p.hop:  # a whole sequence: never asked, contains its hop candidates
                    continue
                by_seq.setdefault((p.generation, tuple(p.concept_keys)), []).append(p)
            for group in by_seq.values():
                for x, y in combinations(group, 2):
                    worst = max(worst, jaccard(x.path_uids, y.path_uids))
        print(f"largest Jaccard overlap of two distinct candidates of one sequence: {worst:.3f}")


if __name__ == "__main__":
    main()
