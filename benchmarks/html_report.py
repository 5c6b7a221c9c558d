"""HTML report size and load time for large runs (issue 14 targets). Prints figures.

    KG_BOLT_PORT=... python benchmarks/html_report.py [--questions 1000] [--keep]

Writes synthetic questions (through the PerspectiveBench importer) and two synthetic judged
runs (through the evaluation's own batch writer: answers of ~8 sentences, one verdict with a
reason per path, one claim per sentence) to the running Neo4j, then measures:

1. building the page from the graph (`eval_payload` + `render_html`) for both runs;
2. the file size (target < 15 MB for 1,000 questions x 2 runs);
3. opening it in headless Chromium (Debian chromium + chromium-driver): navigation to the
   load event, and to the app's ready mark (target < 2 s), median of 3 fresh loads;
4. opening one question (click to detail rendered) and one filter change, in the browser.

The synthetic domain and runs are removed at the end (unless --keep).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

DOMAIN = "html_bench_synthetic"
RUNS = ["html-bench-a", "html-bench-b"]
WORDS = (
    "flow gate valve pressure sensor signal pump reservoir channel filter controller "
    "level report command schedule season yield soil root water crop operator alarm "
    "threshold storage intake basin turbine meter"
).split()


def sentence(rng: random.Random, n: int = 18) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def synthetic_line(i: int, rng: random.Random) -> dict:
    hop = 1 + i % 3
    n_topics = 8

    def path(k: int) -> dict:
        keys = [
            "topic_0",
            *[f"topic_{rng.randrange(1, n_topics - 1)}" for _ in range(hop - 1)],
            f"topic_{n_topics - 1}",
        ]
        for j in range(1, len(keys) - 1):  # no repeated concept in a path
            while keys[j] in keys[:j]:
                keys[j] = f"topic_{rng.randrange(1, n_topics - 1)}"
        labels = [f"REL_{k}_{h}" for h in range(hop)]
        sig = keys[0] + "".join(
            f" -- {lab} --> {key}" for lab, key in zip(labels, keys[1:], strict=True)
        )
        entry = {f"path_{k}": sig}
        if hop == 1:
            entry["reason"] = sentence(rng)
        else:
            for a, b in zip(keys, keys[1:], strict=False):
                entry[f"{a.split('_')[1]}_reason_{b.split('_')[1]}"] = sentence(rng)
        return entry

    paths = [path(k) for k in range(4)]
    pool = {
        f"topic_{t}": {
            "Summary": sentence(rng, 30),
            "Key Evidence": [sentence(rng) for _ in range(3)],
        }
        for t in range(n_topics)
    }
    return {
        "id": i,
        "domain": DOMAIN,
        "perspective_theme": f"Theme{i % 5}",
        "perspective_target_question": f"Question {i}: " + sentence(rng),
        "perspective_valid_paths": paths[:2],
        "focused_evidence": [
            pool["topic_0"]["Key Evidence"][0],
            pool[f"topic_{n_topics - 1}"]["Key Evidence"][1],
        ],
        "valid_paths": paths,
        "full_content_pool": pool,
    }


def synthetic_results(run: str, questions, rng: random.Random):
    from evaluation.models import (
        AnswerResult,
        ClaimResult,
        JudgeResult,
        PathVerdict,
        QuestionResult,
    )
    from kg.ids import answer_uid

    out = []
    for q in questions:
        sentences = [sentence(rng) for _ in range(8)]
        verdicts = []
        for p in q.paths:
            edges = [rng.random() < (0.8 if p.target else 0.4) for _ in range(p.hops)]
            verdicts.append(
                PathVerdict(
                    path_uid=p.uid,
                    present=all(edges),
                    partial=sum(edges) / p.hops,
                    edges_present=edges,
                    edge_sentences=[rng.randrange(8) for _ in range(p.hops)],
                    reason="The answer " + sentence(rng, 24).lower(),
                )
            )
        claims = []
        for s in sentences:
            ok = rng.random() < 0.6
            claims.append(
                ClaimResult(text=s, supported=ok, supporting=sentence(rng) if ok else None)
            )
        text = " ".join(sentences)
        out.append(
            QuestionResult(
                question=q,
                answer_uid=answer_uid(run, q.uid),
                answer=AnswerResult(text=text, tokens=len(text.split()), tokens_source="synthetic"),
                judged=JudgeResult(
                    verdicts=verdicts,
                    claims=claims,
                    relevancy=rng.random(),
                    relevancy_method="synthetic",
                ),
            )
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--keep", action="store_true", help="keep the synthetic data and runs")
    args = ap.parse_args()

    from browser import missing, start_chromium

    from construction.perspectivebench.importer import import_perspectivebench
    from evaluation.reporting.html_report import eval_payload, render_html
    from evaluation.runs import store as run_store
    from evaluation.runs.questions import load_questions
    from kg.runs import RunStatus
    from kg.store import Store

    absent = missing()
    if absent:
        sys.exit(f"needs {', '.join(absent)}: scripts/install-browser.sh")
    tmp = Path(tempfile.mkdtemp(prefix="html-bench-"))
    rng = random.Random(0)
    data = tmp / "synthetic.jsonl"
    with data.open("w") as f:
        for i in range(args.questions):
            f.write(json.dumps(synthetic_line(i, rng)) + "\n")
    store = Store()
    store.ensure_schema()
    try:
        t0 = time.perf_counter()
        import_perspectivebench(store, [data])
        questions, _ = load_questions(store, domains=[DOMAIN])
        for run in RUNS:
            run_store.start_run(
                store,
                run,
                {
                    "kind": "eval",
                    "models": ["synthetic"],
                    "setting": "oracle",
                    "strategy": "plain",
                    "judge": "synthetic-judge",
                    "gt": "evidence",
                    "roles": {"responder": "synthetic", "judge": "synthetic-judge"},
                },
                None,
            )
            results = synthetic_results(run, questions, rng)
            for k in range(0, len(results), 250):
                run_store.write_batch(
                    store,
                    run,
                    "synthetic-judge",
                    results[k : k + 250],
                    {"tokens_in": 0, "tokens_out": 0, "calls": 0, "cached_calls": 0, "cost": 0.0},
                )
            run_store.finish_run(store, run, RunStatus.done, [], 0)
        print(
            f"setup: {len(questions)} synthetic questions x {len(RUNS)} runs written in "
            f"{time.perf_counter() - t0:.1f} s (not timed below)"
        )

        t0 = time.perf_counter()
        payload = eval_payload(store, RUNS)
        t1 = time.perf_counter()
        page = render_html(payload, title="benchmark")
        path = tmp / "report.html"
        path.write_text(page, encoding="utf-8")
        t2 = time.perf_counter()
        size = path.stat().st_size
        print(
            f"1. page built from the graph: {t2 - t0:.2f} s (payload {t1 - t0:.2f} s, "
            f"render+write {t2 - t1:.2f} s)"
        )
        print(
            f"2. file size: {size / 1e6:.2f} MB for {len(questions)} questions x {len(RUNS)} "
            f"runs (target < 15 MB)"
        )

        loads, readies = [], []
        for k in range(3):
            driver = start_chromium(tmp / f"profile-{k}")
            try:
                t0 = time.perf_counter()
                driver.get(path.as_uri())
                wall = time.perf_counter() - t0
                assert (
                    driver.execute_script("return document.body.getAttribute('data-ready')") == "1"
                )
                nav = driver.execute_script(
                    "const n = performance.getEntriesByType('navigation')[0];"
                    "return [n.loadEventEnd, n.domContentLoadedEventEnd];"
                )
                loads.append(nav[0] / 1000)
                readies.append(wall)
                if k == 0:
                    from selenium.webdriver.support.ui import Select

                    driver.find_element("id", "tab-questions").click()
                    t0 = time.perf_counter()
                    Select(driver.find_element("id", "f-run-b")).select_by_value(RUNS[1])
                    Select(driver.find_element("id", "f-outcome")).select_by_value("blended")
                    n_rows = len(driver.find_elements("css selector", "#q-rows tr"))
                    t_filter = time.perf_counter() - t0
                    t0 = time.perf_counter()
                    driver.find_element("css selector", "#q-rows tr").click()
                    driver.find_element("css selector", "#q-detail .answer")
                    t_click = time.perf_counter() - t0
            finally:
                driver.quit()
        print(
            f"3. headless Chromium load (navigation start -> load event): median "
            f"{statistics.median(loads):.2f} s of {', '.join(f'{x:.2f}' for x in loads)}; "
            f"driver.get wall time median {statistics.median(readies):.2f} s "
            f"(target < 2 s)"
        )
        print(
            f"4. in the page: run B + outcome filter -> {n_rows} rows in {t_filter:.2f} s; "
            f"open a question (two runs side by side) {t_click:.2f} s (Selenium round trips "
            "included)"
        )
    finally:
        if not args.keep:
            import bench_cypher

            bench_cypher.run_auto_commit(store, "eval_cleanup", runs=RUNS, domain=DOMAIN)
        store.close()


if __name__ == "__main__":
    main()
