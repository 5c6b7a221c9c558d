"""Chaos: N random `kill -9`s of `kg eval run` and of `kg build`, each followed by a rerun,
and the final graph checked against an uninterrupted run (issue 15). Prints its figures.

    KG_BOLT_PORT=7726 KG_HTTP_PORT=7736 python benchmarks/chaos.py [--kills 5] [--seed 0]

Needs a running Neo4j that may be wiped (never the one the test suite uses concurrently) and
the PerspectiveBench sample in ../shared/data. The LLM is the scripted local test server in a
process of its own (tests/llm_server.py, 50 ms per request).

Eval: run A uninterrupted; run B killed N times at random moments, rerun after each kill until
it completes. Compared: answers, verdicts (question, path, present), claims (question, pos,
supported), and the report files of `kg eval report --out` with the run id taken out.
Build: domain `chaos_clean` built uninterrupted, domain `chaos_killed` killed N times and
rebuilt until done. Compared: node counts per label and relationship counts per type within
the domain, and the exported benchmark (`question_lines`) with the domain name taken out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "perspectivebench" / "sample.jsonl"
DEMO = ROOT / "demo" / "build"
KG = [sys.executable, "-m", "kg.cli.main"]


def start_llm_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "llm_server.py"),
            "--eval-model",
            "--latency",
            "0.05",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    port = proc.stdout.readline().split()[1]
    return proc, f"http://127.0.0.1:{port}/v1"


def eval_cmd(base_url: str, run_id: str, limit: int) -> list[str]:
    return [
        *KG,
        "eval",
        "run",
        "--model",
        "test-model",
        "--base-url",
        base_url,
        "--judge",
        "judge-model",
        "--domain",
        "physics",
        "--limit",
        str(limit),
        "--run-id",
        run_id,
        "--no-cache",
        "--concurrency",
        "4",
    ]


def build_cmd(domain: str) -> list[str]:
    return [
        *KG,
        "build",
        domain,
        "--chunks",
        str(DEMO / "chunks.json"),
        "--palette",
        str(DEMO / "palette.json"),
    ]


def run_with_kills(
    cmd: list[str],
    kills: int,
    rng: random.Random,
    window: tuple[float, float],
    env: dict[str, str],
    progress=None,
) -> dict[str, float | int]:
    """Start `cmd` and kill -9 it, `kills` times, then run it to the end. The kill comes
    after a random delay in `window`, or, with `progress() -> (done, total)`, once a random
    number of further items is stored (so every kill lands mid-run although reruns resume)."""
    done_kills, reruns, early = 0, 0, 0
    while done_kills < kills:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        reruns += 1
        if progress is not None:
            done, total = progress()
            left = total - done
            target = done + rng.randint(1, max(1, left // (kills - done_kills + 1)))
            while proc.poll() is None and progress()[0] < target:
                time.sleep(0.05)
        else:
            try:
                proc.wait(timeout=rng.uniform(*window))
            except subprocess.TimeoutExpired:
                pass
        if proc.poll() is not None:
            early += 1  # finished before its kill
            if proc.returncode == 0:
                break
            continue
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done_kills += 1
        window = (window[0] / 2, window[1] / 2)  # a resumed build has less left to do
    final = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if final.returncode != 0:
        raise SystemExit(
            f"final rerun failed ({final.returncode}):\n{final.stdout}\n{final.stderr}"
        )
    return {"kills": done_kills, "reruns": reruns + 1, "finished_before_kill": early}


def eval_state(store, run_id: str) -> dict[str, object]:
    q = "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $r}) "
    answers = store.run_text(
        q + "MATCH (a)-[:FOR]->(x:Question) RETURN x.uid AS q, a.text AS t ORDER BY q", r=run_id
    )
    verdicts = store.run_text(
        q + "MATCH (a)-[:FOR]->(x:Question) MATCH (v:Verdict)-[:OF]->(a) "
        "MATCH (v)-[:ON]->(p:Path) RETURN x.uid AS q, p.uid AS p, "
        "v.present AS present ORDER BY q, p",
        r=run_id,
    )
    claims = store.run_text(
        q + "MATCH (a)-[:FOR]->(x:Question) MATCH (c:Claim)-[:OF]->(a) "
        "RETURN x.uid AS q, c.pos AS pos, c.supported AS s ORDER BY q, pos",
        r=run_id,
    )
    return {"answers": answers, "verdicts": verdicts, "claims": claims}


_FLOAT = re.compile(r"-?\d+\.\d{11,}")


def _rounded(text: str) -> str:
    """Floats to 10 significant digits: the last digit of some partial-credit CI bounds still
    differs between two runs with the same verdicts (float summation order)."""
    return _FLOAT.sub(lambda m: f"{float(m.group()):.10g}", text)


def report_files(run_id: str, env: dict[str, str]) -> dict[str, str]:
    out = Path(tempfile.mkdtemp(prefix="chaos-report-"))
    subprocess.run(
        [*KG, "eval", "report", run_id, "--out", str(out), "--no-plots"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return {
        p.name.replace(run_id, "<run>"): _rounded(
            p.read_text(encoding="utf-8").replace(run_id, "<run>")
        )
        for p in sorted(out.iterdir())
        if p.suffix in (".csv", ".json", ".md")
    }


def domain_counts(store, domain: str) -> dict[str, int]:
    nodes = store.run_text(
        "MATCH (n) WHERE n.domain = $d UNWIND labels(n) AS l RETURN l, count(*) AS n ORDER BY l",
        d=domain,
    )
    rels = store.run_text(
        "MATCH (n)-[r]->(m) WHERE n.domain = $d AND m.domain = $d "
        "RETURN type(r) AS t, count(*) AS n ORDER BY t",
        d=domain,
    )
    return {**{f"node:{r['l']}": r["n"] for r in nodes}, **{f"rel:{r['t']}": r["n"] for r in rels}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--questions", type=int, default=30)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sys.path.insert(0, str(ROOT))
    from construction.perspectivebench.exporter import question_lines
    from construction.perspectivebench.importer import import_perspectivebench
    from kg.store import Store

    env = {**os.environ, "OPENAI_API_KEY": "chaos"}
    server, base_url = start_llm_server()
    store = Store()
    try:
        store.wipe()
        store.ensure_schema()
        import_perspectivebench(store, [SAMPLE])
        t0 = time.perf_counter()
        subprocess.run(
            eval_cmd(base_url, "chaos-a", args.questions),
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        eval_s = time.perf_counter() - t0

        def eval_progress() -> tuple[int, int]:
            n = store.run_text(
                "MATCH (:Answer)-[:JUDGED_IN]->(:Run {uid: 'chaos-b'}) RETURN count(*) AS n"
            )[0]["n"]
            return n, args.questions

        e = run_with_kills(
            eval_cmd(base_url, "chaos-b", args.questions),
            args.kills,
            rng,
            (0.3 * eval_s, 0.9 * eval_s),
            env,
            eval_progress,
        )
        same_eval = eval_state(store, "chaos-a") == eval_state(store, "chaos-b")
        same_report = report_files("chaos-a", env) == report_files("chaos-b", env)
        n = len(eval_state(store, "chaos-a")["answers"])
        print(
            f"eval: {n} questions, uninterrupted {eval_s:.1f} s; {e['kills']} kill -9(s), "
            f"{e['reruns']} run(s), {e['finished_before_kill']} finished before its kill; "
            f"answers/verdicts/claims equal: {same_eval}; report files equal: {same_report}"
        )

        t0 = time.perf_counter()
        subprocess.run(build_cmd("chaos_clean"), cwd=ROOT, env=env, check=True, capture_output=True)
        build_s = time.perf_counter() - t0
        b = run_with_kills(
            build_cmd("chaos_killed"), args.kills, rng, (0.2 * build_s, 0.9 * build_s), env
        )
        # build Runs are the record of attempts (each killed one is listed `interrupted`),
        # not graph content: compared apart
        counts_a, counts_b = (
            domain_counts(store, "chaos_clean"),
            domain_counts(store, "chaos_killed"),
        )
        runs_a, runs_b = counts_a.pop("node:Run", 0), counts_b.pop("node:Run", 0)
        bench_a = json.dumps(question_lines(store, "chaos_clean"), sort_keys=True).replace(
            "chaos_clean", "<d>"
        )
        bench_b = json.dumps(question_lines(store, "chaos_killed"), sort_keys=True).replace(
            "chaos_killed", "<d>"
        )
        print(
            f"build: uninterrupted {build_s:.1f} s; {b['kills']} kill -9(s), {b['reruns']} "
            f"run(s), {b['finished_before_kill']} finished before its kill; counts per "
            f"label/type equal: {counts_a == counts_b} ({sum(counts_a.values())} nodes+rels);"
            f" exported benchmark equal: {bench_a == bench_b}; build Runs recorded: "
            f"{runs_a} and {runs_b}"
        )
        if counts_a != counts_b:
            diff = {
                k: (counts_a.get(k), counts_b.get(k))
                for k in sorted(set(counts_a) | set(counts_b))
                if counts_a.get(k) != counts_b.get(k)
            }
            print(f"  differing counts (clean, killed): {diff}")
        ok = same_eval and same_report and counts_a == counts_b and bench_a == bench_b
        print(f"result: {'PASS' if ok else 'FAIL'}")
        if not ok:
            raise SystemExit(1)
    finally:
        store.close()
        server.stdin.close()
        server.wait(10)


if __name__ == "__main__":
    main()
