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

Concurrent writes and signals (issue 30, `concurrent_cases`; also run by CI in
tests/integration/test_chaos_concurrent.py): while an eval of a domain runs, `kg domain delete`,
`kg build --replace --yes` and a build of that domain; an eval started while a build holds the
domain; SIGTERM and SIGINT to an eval and to a build; kill -9 of an eval. Counted: runs that
ended `done` over missing questions, stale `running` records (a Run stored `running` with no
live process, or read `running` by `kg eval runs`) and leases left behind. All must be 0.
"""

from __future__ import annotations

import argparse
import contextlib
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "perspectivebench" / "sample.jsonl"
DEMO = ROOT / "demo" / "build"
KG = [sys.executable, "-m", "kg.cli.main"]


def start_llm_server(latency: float = 0.05) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "llm_server.py"),
            "--eval-model",
            "--latency",
            str(latency),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    port = proc.stdout.readline().split()[1]
    return proc, f"http://127.0.0.1:{port}/v1"


def eval_cmd(base_url: str, run_id: str, limit: int, domain: str = "physics") -> list[str]:
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
        domain,
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


# --- concurrent writes and signals (issue 30) ---------------------------------------------


def _wait(cond, timeout: float = 120.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.time() + timeout
    while not cond():
        if proc is not None and proc.poll() is not None:
            return  # it ended on its own: the caller looks at how
        if time.time() > deadline:
            raise TimeoutError("the awaited state never came")
        time.sleep(0.1)


def _guarded(store, run_id: str) -> bool:
    """The run's lease holds the domains it reads (`Lease.guard` ran)."""
    return bool(
        store.run_text(
            "MATCH (l:Lease {key: $k}) WHERE size(coalesce(l.guards, [])) > 0 RETURN 1 AS x",
            k=f"run:{run_id}",
        )
    )


def _judged(store, run_id: str) -> int:
    return store.run_text(
        "MATCH (:Answer)-[:JUDGED_IN]->(:Run {uid: $r}) RETURN count(*) AS n", r=run_id
    )[0]["n"]


def _questions(store, domain: str) -> list[str]:
    rows = store.run_text(
        "MATCH (q:Question {domain: $d}) RETURN q.uid + ':' + q.text AS k ORDER BY k", d=domain
    )
    return [r["k"] for r in rows]


def _spawn(cmd: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def integrity_counts(store, env: dict[str, str]) -> dict[str, int]:
    """The issue's figures over every Run in the graph, once no command runs any more: `done`
    runs whose answers hang on no question; runs the readers (`kg eval runs --json`, `kg
    domain list --json`) show `running` (no process runs them: a killed one's Run is stored
    `running` but must read `interrupted`); live leases left behind."""
    done_missing = store.run_text(
        "MATCH (r:Run {status: 'done'}) WHERE r.kind IN ['eval', 'judge'] "
        "AND EXISTS { MATCH (a:Answer)-[:IN_RUN]->(r) WHERE NOT (a)-[:FOR]->(:Question) } "
        "RETURN count(r) AS n"
    )[0]["n"]
    listed = subprocess.run(
        [*KG, "eval", "runs", "--json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    domains = subprocess.run(
        [*KG, "domain", "list", "--json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    shown_running = sum(
        1 for r in json.loads(listed.stdout or "[]") if r["status"] == "running"
    ) + sum(
        1
        for d in json.loads(domains.stdout or "[]")
        if (d.get("last_build") or {}).get("status") == "running"
    )
    from kg.leases import _dead_here

    owners = store.run_text(
        "MATCH (l:Lease) WHERE l.owner IS NOT NULL AND l.expires_at >= timestamp() "
        "RETURN l.owner AS o"
    )
    leases = sum(1 for r in owners if not _dead_here(r["o"]))  # a killed owner's expires
    return {
        "done_over_missing_questions": done_missing,
        "stale_running_shown_by_readers": shown_running,
        "live_leases_left": leases,
    }


def concurrent_cases(
    store,
    base_url: str,
    env: dict[str, str],
    domain: str = "physics",
    limit: int = 12,
    build_chunks: Path | None = None,
    hold=contextlib.nullcontext,
    real_build: bool = True,
) -> list[dict[str, Any]]:
    """Each case as {case, ok, detail}: writers refused while an eval reads `domain`, an eval
    refused while a build holds it, signals that close runs and builds `interrupted`.

    `hold()` keeps the model server from answering for its block (the test server's
    pause/resume), so a second process surely meets the eval mid-run; without it, `base_url`
    must answer slowly enough (about a second a request) for an eval of `limit` questions to
    outlive the start of a second `kg` process. `real_build` adds the case of an eval started
    during a real offline build of `build_chunks` (it needs chunks that give questions; CI's
    test keeps the deterministic case of a held build lease only)."""
    chunks = build_chunks or DEMO / "chunks.json"
    out: list[dict[str, Any]] = []

    def record(case: str, ok: bool, detail: str) -> None:
        out.append({"case": case, "ok": bool(ok), "detail": detail[-600:]})

    # 1-3. writers of a domain while an eval reads it: refused (exit 3), the eval ends done
    writers = {
        "delete during eval": [*KG, "domain", "delete", domain, "--yes"],
        "replace during eval": [
            *KG,
            "build",
            domain,
            "--chunks",
            str(chunks),
            "--replace",
            "--yes",
        ],
        "build during eval": [*KG, "build", domain, "--chunks", str(chunks), "--extend"],
    }
    for n, (case, cmd) in enumerate(writers.items()):
        before = _questions(store, domain)
        run_id = f"chaos-w{n}"
        ev = _spawn(eval_cmd(base_url, run_id, limit, domain), env)
        with hold():
            _wait(lambda run_id=run_id: _guarded(store, run_id), proc=ev)
            writer = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        ev_out, _ = ev.communicate(timeout=600)
        status = store.run_text("MATCH (r:Run {uid: $r}) RETURN r.status AS s", r=run_id)
        record(
            case,
            writer.returncode == 3
            and "read its questions" in writer.stdout + writer.stderr
            and ev.returncode == 0
            and status == [{"s": "done"}]
            and _questions(store, domain) == before,
            f"writer exit {writer.returncode}: {(writer.stdout + writer.stderr).strip()} | "
            f"eval exit {ev.returncode}: {ev_out.strip()}",
        )

    # 4. an eval started while a build holds the domain: refused, nothing answered
    palette = ["--palette", str(DEMO / "palette.json")]
    if real_build:
        build = _spawn([*KG, "build", "chaos_building", "--chunks", str(chunks), *palette], env)
        _wait(
            lambda: bool(
                store.run_text("MATCH (l:Lease {key: 'build:chaos_building'}) RETURN l.owner AS o")
            ),
            proc=build,
        )
        _wait(lambda: bool(_questions(store, "chaos_building")) or build.poll() is not None, 600)
        started_during = build.poll() is None
        res = subprocess.run(
            eval_cmd(base_url, "chaos-during-build", limit, "chaos_building"),
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        build_out, _ = build.communicate(timeout=900)
        refused = res.returncode == 3 and "being written by" in res.stdout + res.stderr
        after = store.run_text("MATCH (r:Run {uid: 'chaos-during-build'}) RETURN r.status AS s")
        record(
            "eval during build",
            build.returncode == 0
            # refused while the build ran; an eval that met the finished build is done over it
            and (refused or (res.returncode == 0 and after == [{"s": "done"}])),
            f"eval started while the build ran: {started_during}; eval exit {res.returncode}: "
            f"{(res.stdout + res.stderr).strip()} | build exit {build.returncode}",
        )

    # 4b. the same, deterministic: this process holds the domain's build lease (as a build
    # does from its start to its end) while an eval of the domain starts
    from kg import leases

    with leases.hold(store, f"build:{domain}", "chaos-held-build", "build"):
        res = subprocess.run(
            eval_cmd(base_url, "chaos-while-held", limit, domain),
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
    answered = store.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: 'chaos-while-held'}) RETURN count(a) AS n"
    )[0]["n"]
    record(
        "eval while a build holds the domain",
        res.returncode == 3 and "being written by" in res.stdout + res.stderr and answered == 0,
        f"eval exit {res.returncode}: {(res.stdout + res.stderr).strip()}; answers {answered}",
    )

    # 5-6. SIGTERM / SIGINT to an eval: exit 130, one line, stored `interrupted`, lease gone
    for sig in (signal.SIGTERM, signal.SIGINT):
        run_id = f"chaos-{sig.name.lower()}"
        ev = _spawn(eval_cmd(base_url, run_id, limit, domain), env)
        _wait(lambda run_id=run_id: _judged(store, run_id) > 0, proc=ev)
        with hold():
            ev.send_signal(sig)
            text, _ = ev.communicate(timeout=120)
        row = store.run_text("MATCH (r:Run {uid: $r}) RETURN r.status AS s", r=run_id)
        lease = store.run_text("MATCH (l:Lease {key: $k}) RETURN l.owner AS o", k=f"run:{run_id}")
        # one line says the interruption; the cost plan's summary line before the run is not
        # an error line
        lines = [
            ln for ln in text.strip().splitlines() if ln.strip() and not ln.startswith("plan:")
        ]
        record(
            f"{sig.name} to eval",
            ev.returncode == 130
            and row == [{"s": "interrupted"}]
            and not lease
            and len(lines) == 1
            and f"interrupted by {sig.name}" in lines[0],
            f"exit {ev.returncode}; stored {row}; lease {lease}; output: {text.strip()}",
        )

    # 7. SIGTERM to a build: exit 130, its Run `interrupted`, its lease gone
    build = _spawn([*KG, "build", "chaos_sigterm", "--chunks", str(chunks), *palette], env)
    _wait(
        lambda: bool(
            store.run_text(
                "MATCH (r:Run {kind: 'build', domain: 'chaos_sigterm'}) RETURN r.uid AS u"
            )
        ),
        proc=build,
    )
    time.sleep(1.0)
    build.send_signal(signal.SIGTERM)
    text, _ = build.communicate(timeout=300)
    row = store.run_text(
        "MATCH (r:Run {kind: 'build', domain: 'chaos_sigterm'}) RETURN r.status AS s"
    )
    lease = store.run_text("MATCH (l:Lease {key: 'build:chaos_sigterm'}) RETURN l.owner AS o")
    record(
        "SIGTERM to build",
        build.returncode == 130 and row == [{"s": "interrupted"}] and not lease,
        f"exit {build.returncode}; stored {row}; lease {lease}; output tail: {text.strip()}",
    )

    # 8. kill -9 of an eval: stored `running`, read `interrupted` (lease expired) by readers
    run_id = "chaos-kill9"
    ev = _spawn(eval_cmd(base_url, run_id, limit, domain), env)
    _wait(lambda: _judged(store, run_id) > 0, proc=ev)
    with hold():
        os.kill(ev.pid, signal.SIGKILL)
        ev.wait()
    listed = subprocess.run(
        [*KG, "eval", "runs", "--json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    shown = [r for r in json.loads(listed.stdout or "[]") if r["uid"] == run_id]
    record(
        "kill -9 of eval",
        bool(shown) and shown[0]["status"] == "interrupted",
        f"`kg eval runs` shows {shown[0]['status'] if shown else None}",
    )
    return out


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

        # concurrent writers and signals, against a slow model (an eval outlives a second
        # process's start)
        slow, slow_url = start_llm_server(latency=0.5)
        try:
            t0 = time.perf_counter()
            cases = concurrent_cases(store, slow_url, env, limit=args.questions)
            cases_s = time.perf_counter() - t0
        finally:
            assert slow.stdin is not None
            slow.stdin.close()
            slow.wait(10)
        for c in cases:
            print(f"  {'ok  ' if c['ok'] else 'FAIL'} {c['case']}: {c['detail'][:300]}")
        counts = integrity_counts(store, env)
        print(
            f"concurrent writes and signals: {sum(c['ok'] for c in cases)}/{len(cases)} cases "
            f"as expected in {cases_s:.1f} s; " + ", ".join(f"{k} {v}" for k, v in counts.items())
        )
        ok = ok and all(c["ok"] for c in cases) and not any(counts.values())
        print(f"result: {'PASS' if ok else 'FAIL'}")
        if not ok:
            raise SystemExit(1)
    finally:
        store.close()
        server.stdin.close()
        server.wait(10)


if __name__ == "__main__":
    main()
