"""What the small local model scores (issue 17, part 4). Prints every figure with the load.

    python benchmarks/local_model_scores.py [--questions 20] [--domain physics]
        [--max-tokens 256] [--perspectra-n 12] [--judge-answers 6] [--build-chunks 3]
        [--out out/local-model-scores]

1. PerspectiveBench: the first N questions of one domain of ../shared/data/perspectivebench
   (sample.jsonl) answered by SmolLM2-135M (`local/smollm2-135m`) in Base and Oracle, judged
   by the offline default judge (edge-evidence), next to the cover-all baseline (Oracle) on
   the same questions; the judge is first validated on ../shared/data/judge-gold/dev.jsonl
   (`kg judge validate`), so the report shows its measured kappa beside the scores, as
   `kg eval report` does. PAS etc. with bootstrap 95% CIs.
2. PERSPECTRA: task sets of N items per task built from ../shared/data/perspectra
   (seed 13), T1-T3 accuracy (strict parsing) and the share of unparseable replies.
3. Structured output (JSON replies) of the 135M model: the LLM judge (the model judging its
   own Oracle answers: path checklist + claims, schema-constrained, one repair) and the build's
   facts stage on a few chunks; failure rate = calls that ended without valid JSON of the
   schema / calls.

Self-contained: a Neo4j with empty data and the local model server of its own on free ports
(benchmarks/own_servers.py), stopped at the end. Needs xllamacpp, the Neo4j
jars provisioned once (`kg db up`) and the embedding model in the Hugging Face cache.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from own_servers import load, own_servers  # noqa: E402

LOCAL = "local/smollm2-135m"
STRUCTURED = ("StructuredOutputError", "TruncatedReply")


def _cell(v) -> str:
    if isinstance(v, dict):  # a CI as exported by the report
        if v.get("mean") is None:
            return "–"
        return f"{v['mean']:.1f} [{v['low']:.1f}, {v['high']:.1f}]"
    return str(v)


def perspectivebench(store, args, out: Path) -> None:
    from construction.perspectivebench.importer import import_perspectivebench
    from evaluation.judges import EdgeEvidenceJudge
    from evaluation.judges.gold import file_hash, load_gold
    from evaluation.judges.validation import decide, store_validation, summarize
    from evaluation.models import Setting
    from evaluation.reporting.report import build_report
    from evaluation.runs.questions import load_questions
    from evaluation.runs.runner import execute
    from evaluation.runs.spec import RunSpec
    from kg.llm import LLMConfig

    import_perspectivebench(store, [SHARED / "perspectivebench/sample.jsonl"])
    # the judge's trust, measured the way `kg judge validate --judge edge-evidence` does
    gold = SHARED / "judge-gold/dev.jsonl"
    questions, _ = load_questions(store, skip_invalid=True)
    judge = EdgeEvidenceJudge(faithfulness=False)
    decisions, errors = decide(judge, load_gold(gold, questions))
    validation = summarize(judge.name, decisions, gold, file_hash(gold), errors)
    store_validation(store, validation)
    k = validation.overall.kappa
    print(
        f"judge {judge.name}: kappa {k.mean:.3f} [{k.low:.2f}, {k.high:.2f}] on "
        f"{gold.name} ({len(decisions)} path decisions)"
    )

    common = {
        "domains": [args.domain],
        "limit": args.questions,
        "judge": "edge-evidence",
        "relevancy_n": 0,
    }
    llm = LLMConfig(
        model=LOCAL, role="responder", cache=False, concurrency=1, max_tokens=args.max_tokens
    )
    runs = []
    for setting in (Setting.base, Setting.oracle):
        rid = f"smollm2-{setting.value}"
        t0 = time.monotonic()
        s = execute(
            store,
            RunSpec(kind="eval", run_id=rid, responder_llm=llm, setting=setting, **common),
        )
        print(
            f"run {rid}: {s.status}, {s.completed} answered, {s.failed} failed, "
            f"{s.truncated} cut at max_tokens {args.max_tokens}; "
            f"{time.monotonic() - t0:.0f} s; {load()}"
        )
        for e in s.errors[:3]:
            print(f"  ! {e[:200]}")
        runs.append(rid)
    execute(
        store,
        RunSpec(
            kind="eval", run_id="cover-all", responder="cover-all", setting=Setting.oracle, **common
        ),
    )
    runs.append("cover-all")
    rep = build_report(store, runs, out / "eval", formats=["json", "md"], plots=False)
    rows = json.loads((out / "eval" / "overall.json").read_text())["rows"]
    print(
        f"\nPerspectiveBench, {args.domain}, first {args.questions} questions; "
        "mean [bootstrap 95% CI]"
    )
    print("| run | setting | judge kappa | n | PPrec | PRec | PAS | #Tok |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['run']} | {r['setting']} | {r['judge kappa']} | {r['n']} | "
            f"{_cell(r['PPrec'])} | {_cell(r['PRec'])} | {_cell(r['PAS'])} | "
            f"{_cell(r['#Tok'])} |"
        )
    flagged = {rid: sum(1 for s in rep.scores[rid] if s.empty_a) for rid in runs}
    print(f"answers naming no valid path at all (|A|=0): {flagged}")


def perspectra(store, args, env: dict[str, str]) -> None:
    import subprocess

    from evaluation.perspectra.llm_eval import evaluate
    from kg.llm import LLMClient, LLMConfig
    from kg.queries.task_items import list_task_sets, load_items

    kg = [sys.executable, "-m", "kg.cli.main", "perspectra"]
    for cmd in (
        ["import", str(SHARED / "perspectra/Perspectra.json")],
        ["build-tasks", "--n", str(args.perspectra_n), "--seed", "13"],
    ):
        subprocess.run([*kg, *cmd], env=env, check=True, capture_output=True)
    print(f"\nPERSPECTRA ({args.perspectra_n} items per task, seed 13, max_tokens 24)")
    client = LLMClient(LLMConfig(model=LOCAL, cache=False, concurrency=1, max_tokens=24))
    for b in sorted(list_task_sets(store), key=lambda b: b["task"]):
        if b["task"] not in args.tasks:
            continue
        items = load_items(store, b["task_set"])[: args.perspectra_n]
        t0 = time.monotonic()
        out = evaluate(store, client, items, b["task"], b["task_set"])
        s = out.scores.summary
        print(
            f"  {b['task'].upper()}: accuracy {s['accuracy']:.3f} on {out.asked} items, "
            f"unparseable replies {s['invalid']:.3f}, failed calls {out.failed}; "
            f"{time.monotonic() - t0:.0f} s; {load()}"
        )


def structured(store, args) -> None:
    from evaluation.runs.runner import execute
    from evaluation.runs.spec import RunSpec
    from kg.llm import LLMConfig

    print("\nStructured output (JSON replies, schema-constrained decoding, one repair)")
    s = execute(
        store,
        RunSpec(
            kind="judge",
            run_id="smollm2-judges-itself",
            source_run="smollm2-oracle",
            judge="llm",
            judge_llm=LLMConfig(
                model=LOCAL, role="judge", cache=False, concurrency=1, max_tokens=320
            ),
            limit=args.judge_answers,
            relevancy_n=0,
        ),
    )
    bad = [e for e in s.errors if any(k in e for k in STRUCTURED)]
    print(
        f"  LLM judge: {len(bad)} of {s.calls} calls without valid JSON "
        f"({len(bad) / max(s.calls, 1):.1%}); {s.completed} of {s.completed + s.failed} "
        f"answers judged; {load()}"
    )
    for e in bad[:2]:
        print(f"    ! {e[:200]}")


def structured_build(store, args) -> None:
    from construction.pipeline.config import BuildConfig
    from construction.pipeline.llm_route import make_build_llm
    from construction.pipeline.runner import BuildPlan, build_domain

    chunks = json.loads((ROOT / "demo/build/chunks.json").read_text())[: args.build_chunks]
    path = Path(store.settings.resolved_server_home).parent / "chunks.json"
    path.write_text(json.dumps(chunks))
    llm = make_build_llm(LOCAL, cache=False, concurrency=1, max_tokens=256)
    assert llm is not None
    result = build_domain(
        store,
        BuildPlan(
            config=BuildConfig(domain="local_scores_build"),
            chunk_paths=[path],
            palette_path=ROOT / "demo/build/palette.json",
            only=["chunks", "facts"],
        ),
        llm=llm,
    )
    calls = llm.client.ledger.calls
    json_bad = sum(
        n
        for r, n in result.failed_reasons.items()
        if r in ("invalid_reply", "missing_field", "truncated")
    )
    print(
        f"  build (facts stage, {len(chunks)} chunks): {json_bad} of {calls} calls without "
        f"valid JSON ({json_bad / max(calls, 1):.1%}); reasons {result.failed_reasons or '{}'}; "
        f"{load()}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--domain", default="physics")
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--perspectra-n", type=int, default=12)
    ap.add_argument("--judge-answers", type=int, default=6)
    ap.add_argument("--build-chunks", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "local-model-scores")
    ap.add_argument(
        "--parts",
        default="pb,perspectra,judge,build",
        help="which parts to run (the LLM judge part needs pb: it judges the Oracle answers)",
    )
    ap.add_argument("--tasks", default="t1,t2,t3", help="PERSPECTRA tasks of the perspectra part")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    args.tasks = set(args.tasks.split(","))
    t0 = time.monotonic()
    with own_servers(llm_threads=1) as own:
        print(f"own servers started ({own.started}); {load()}")
        if "pb" in parts:
            perspectivebench(own.store, args, args.out)
        if "perspectra" in parts:
            perspectra(own.store, args, own.env)
        if "judge" in parts:
            structured(own.store, args)
        if "build" in parts:
            structured_build(own.store, args)
    print(f"\ntotal {time.monotonic() - t0:.0f} s; {load()}")


if __name__ == "__main__":
    main()
