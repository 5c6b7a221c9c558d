"""The local model (issues 17 and 28). Prints figures; the machine's load is printed beside them
(the server shares the CPU with everything else running).

    python benchmarks/local_model.py [--threads 1] [--parallel 2] [--requests 3]
        [--max-tokens 96] [--questions 4] [--skip-eval]

1. Generation speed of the local server (SmolLM2-135M on llama.cpp's server, xllamacpp) for
   each thread count, side by side: completion tokens per second of wall time with one slot
   answering 1 request at a time, and with N slots (`--parallel`) answering N concurrent
   requests together (continuous batching). Every server (each thread count, 1 and N slots)
   is up at once and the rounds go to each in turn, so a busy machine's changing load falls
   on all alike. Printed: the ratio N slots / 1 slot per thread count, and the best N-slot
   server over the best 1-slot one (target >= 1.5 for N=2), also per server CPU-second.
   Requests go straight to the HTTP API (httpx, with the server's key), no product code.
2. An evaluation with the local model as responder and judge (Base, PerspectiveBench sample,
   no cache, one slot): its end-to-end time divided by the sum of the server's own generation
   times for the same requests (the "total time" lines of llama.cpp's log; target <= 1.2),
   and the judge's structured replies (schema-constrained JSON): how many failed, and of
   those how many were not valid JSON at all, did not match the schema, were cut at
   max_tokens, or were valid JSON whose content failed the judge's checks.

Self-contained: it starts a Neo4j with empty data and the local model server of its own, on
free ports, through the product (benchmarks/own_servers.py), and stops both at the end. Needs
xllamacpp, the provisioned Neo4j jars (`kg db up` once) and ../shared/data (the benchmark
questions).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
PROMPT = [
    {
        "role": "user",
        "content": "Write a long, detailed story about a river that floods "
        "a valley every spring, and the farmers who live there.",
    }
]
_TOTAL = re.compile(r"print_timing: .*\btotal time =\s+([\d.]+) ms")


def _load() -> str:
    from own_servers import load

    return load()


async def _one(client: httpx.AsyncClient, url: str, max_tokens: int) -> int:
    r = await client.post(
        f"{url}/chat/completions",
        json={
            "model": "smollm2-135m",
            "messages": PROMPT,
            "max_tokens": max_tokens,
            "temperature": 0.0,
        },
        timeout=600,
    )
    r.raise_for_status()
    return int(r.json()["usage"]["completion_tokens"])


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used: its share of a busy machine's cores
    varies, its CPU time per token does not."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _round(client: httpx.AsyncClient, url: str, concurrent: int, max_tokens: int) -> int:
    done = await asyncio.gather(*(_one(client, url, max_tokens) for _ in range(concurrent)))
    return sum(done)


class _Tally:
    """One server's totals over the rounds: tokens, wall seconds, server CPU seconds."""

    def __init__(self) -> None:
        self.tokens, self.wall, self.cpu = 0, 0.0, 0.0

    @property
    def rate(self) -> float:
        return self.tokens / self.wall

    @property
    def per_cpu(self) -> float:
        return self.tokens / self.cpu


async def _interleaved(servers: dict, requests: int, max_tokens: int) -> dict:
    """Every server gets its rounds in turn (1 slot, N slots, next thread count, ...), so a
    change in the machine's load falls on all of them alike."""
    from kg.llm.local.key import auth_headers

    tallies = {key: _Tally() for key in servers}
    async with httpx.AsyncClient() as client:
        for settings, _st in servers.values():
            client.headers.update(auth_headers(settings))
            await _round(client, settings.base_url, settings.parallel, 8)  # warm every slot
        for _ in range(requests):
            for key, (settings, st) in servers.items():
                t0, cpu0 = time.perf_counter(), _cpu_s(st.pid or 0)
                tally = tallies[key]
                tally.tokens += await _round(
                    client, settings.base_url, settings.parallel, max_tokens
                )
                tally.wall += time.perf_counter() - t0
                tally.cpu += _cpu_s(st.pid or 0) - cpu0
    return tallies


def speed(threads: list[int], parallel: int, requests: int, max_tokens: int, root: Path) -> None:
    from contextlib import ExitStack

    from own_servers import free_port

    from kg.llm.local import get_local_settings, server

    print(
        "== 1. generation speed of the local server (completion tokens / wall second), "
        f"1 slot vs {parallel} slots, side by side: every server is up at once and the rounds "
        f"go to each in turn; {_load()}"
    )
    servers = {}
    with ExitStack() as stack:
        for n in threads:
            for slots in dict.fromkeys((1, parallel)):
                port = free_port()
                settings = get_local_settings(
                    port=port, threads=n, parallel=slots, server_home=root / f"llm-{port}"
                )
                stack.callback(server.stop, settings)
                st, _secs = server.start(settings)
                servers[(n, slots)] = (settings, st)
        tallies = asyncio.run(_interleaved(servers, requests, max_tokens))
    for (n, slots), t in tallies.items():
        print(
            f"threads={n}, {slots} slot(s), {slots} concurrent request(s): {t.rate:6.1f} "
            f"tokens/s in total, {t.per_cpu:6.1f} tokens per server CPU-second ({t.tokens} "
            f"tokens in {requests} round(s))"
        )
    if parallel == 1:
        return
    for n in threads:
        one, many = tallies[(n, 1)], tallies[(n, parallel)]
        print(
            f"threads={n}: {parallel} slots / 1 slot = {many.rate / one.rate:.2f}x aggregate "
            f"throughput, {many.per_cpu / one.per_cpu:.2f}x tokens per CPU-second"
        )
    best_one = max(threads, key=lambda n: tallies[(n, 1)].rate)
    best_many = max(threads, key=lambda n: tallies[(n, parallel)].rate)
    ratio = tallies[(best_many, parallel)].rate / tallies[(best_one, 1)].rate
    print(
        f"best {parallel} slots (threads={best_many}) / best 1 slot (threads={best_one}) = "
        f"{ratio:.2f}x aggregate throughput (target >= 1.5 for 2 slots); {_load()}"
    )


def _server_ms(log: Path, offset: int) -> tuple[float, int]:
    text = log.read_text(errors="replace")[offset:]
    times = [float(m) for m in _TOTAL.findall(text)]
    return sum(times), len(times)


def evaluation(store, questions: int) -> None:
    from construction.perspectivebench.importer import import_perspectivebench
    from evaluation.models import Setting
    from evaluation.runs.runner import execute
    from evaluation.runs.spec import RunSpec
    from kg.llm import LLMConfig
    from kg.llm.local import get_local_settings, server

    settings = get_local_settings(threads=1)
    st, _ = server.start(settings)
    print(
        f"\n== 2. evaluation with the local model ({questions} questions, Base, responder "
        f"and judge {st.info.model if st.info else '?'}, threads {settings.threads}); "
        f"{_load()}"
    )
    cfg = {"model": "local/smollm2-135m", "cache": False, "concurrency": 1}
    run_id = f"bench-local-{int(time.time())}"
    spec = RunSpec(
        kind="eval",
        run_id=run_id,
        responder="llm",
        responder_llm=LLMConfig(role="responder", **cfg),
        judge="llm",
        judge_llm=LLMConfig(role="judge", **cfg),
        setting=Setting.base,
        domains=["physics"],
        limit=questions,
        relevancy_n=0,
    )
    import_perspectivebench(store, [SHARED / "perspectivebench/sample.jsonl"])
    offset = len(st.home.log.read_text(errors="replace"))
    summary = execute(store, spec)
    server.stop(settings)
    ms, n = _server_ms(st.home.log, offset)
    loop_s = summary.elapsed_s - summary.setup_s
    print(
        f"run: {summary.status}, {summary.completed} judged, {summary.failed} failed, "
        f"{summary.calls} calls, {summary.truncated} cut at max_tokens"
    )
    print(
        f"end-to-end {summary.elapsed_s:.1f} s (setup {summary.setup_s:.1f} s); server "
        f"generation {ms / 1000:.1f} s over {n} requests"
    )
    if ms:
        print(
            f"ratio end-to-end / server generation: {summary.elapsed_s / (ms / 1000):.3f} "
            f"(questions loop only: {loop_s / (ms / 1000):.3f}; target <= 1.2)"
        )
    # Each failed question's error, in one kind (a cut reply is also incomplete JSON).
    kinds = {
        "cut at max_tokens": "TruncatedReply",
        "not valid JSON": "is not valid JSON",
        "JSON not matching the schema": "does not match",
        "valid JSON failing the judge's checks": "StructuredOutputError",
    }
    counts = dict.fromkeys(kinds, 0)
    for e in summary.errors:
        kind = next((k for k, marker in kinds.items() if marker in e), None)
        if kind is not None:
            counts[kind] += 1
    failed = sum(counts.values())
    print(
        f"structured replies that failed their question: {failed} of {summary.calls} calls "
        "(answers and judge calls): " + ", ".join(f"{v} {k}" for k, v in counts.items())
    )
    for e in summary.errors[:5]:
        print(f"  ! {e[:300]}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--threads", default="1")
    ap.add_argument("--parallel", type=int, default=2, help="slots compared with one slot")
    ap.add_argument("--requests", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--questions", type=int, default=4)
    ap.add_argument("--skip-eval", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from own_servers import own_servers

    # the model server is started per part (threads, slots); Neo4j only for part 2
    with own_servers(neo4j=not args.skip_eval, llm=False) as own:
        print(
            f"own servers: Neo4j bolt {own.env['KG_BOLT_PORT']}, model server port "
            f"{own.env['KG_LLM_PORT']} (data in {own.root}, deleted at the end)"
        )
        speed(
            [int(t) for t in args.threads.split(",")],
            args.parallel,
            args.requests,
            args.max_tokens,
            own.root,
        )
        if not args.skip_eval:
            evaluation(own.store, args.questions)


if __name__ == "__main__":
    main()
