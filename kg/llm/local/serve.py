"""The server process itself: llama.cpp's native HTTP server (xllamacpp) on 127.0.0.1.

`kg.llm.local.server.start` runs `python -m kg.llm.local.serve --model F.gguf ...` in a session
of its own; the API key comes in the environment (`KG_LLM_SERVE_KEY`), never on the command
line where `ps` would show it. The process serves until SIGTERM or SIGINT. Continuous batching
is on: `--parallel N` slots generate together, each with `--n-ctx` tokens of context.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

KEY_ENV = "KG_LLM_SERVE_KEY"
HOST = "127.0.0.1"
# Read by OpenMP when the process starts, so the parent sets them (see `main`'s `poll`).
THREAD_ENV = {"OMP_WAIT_POLICY": "passive"}


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m kg.llm.local.serve")
    p.add_argument("--model", required=True, help="path of the GGUF file")
    p.add_argument("--alias", required=True, help="the model name the API answers as")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--n-ctx", type=int, required=True, help="context tokens per slot")
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--parallel", type=int, required=True, help="slots generating together")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    key = os.environ.pop(KEY_ENV, "")
    if not key:
        print(f"serve: no API key in {KEY_ENV}", file=sys.stderr)
        return 2
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = [HOST]
    params.port = args.port
    params.api_keys = [key]
    params.n_parallel = args.parallel
    params.n_ctx = args.n_ctx * args.parallel  # the KV cache is split among the slots
    params.cont_batching = True
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    # Threads sleep between steps instead of spinning (with OMP_WAIT_POLICY=passive, set by
    # the parent before OpenMP starts): on a busy 2-core machine spinning threads made two
    # threads 30x slower than one; sleeping ones are about as fast (docs/local-model.md).
    params.cpuparams.poll = 0
    params.cpuparams_batch.poll = 0
    params.ui = False  # no web page: an API only
    params.offline = True  # never reach a model hub
    # Stop signals are taken synchronously below, so no handler interrupts llama.cpp's threads.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # llama.cpp logged why (model file, port) just above
        print(f"serve: the server did not start: {exc}", file=sys.stderr, flush=True)
        return 1
    print(f"serve: listening on {server.listening_address}", flush=True)
    received = signal.sigwait(stop)
    print(f"serve: stopping on {signal.Signals(received).name}", flush=True)
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
