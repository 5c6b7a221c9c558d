"""Embedding speed per backend, on the same real texts in the same process.

    python benchmarks/embeddings_speed.py [--n 1000] [--rounds 2] [--backends torch,bf16]
        [--threads 0,1]

Texts: the first --n opinion expansions of the shared Perspectra.json and up to --n sentences of
the shared physics chunks (measurement only: the data stays where it is). For each backend,
thread count (0 = one per core; batches side by side, one torch thread each) and corpus it
prints texts/s, CPU seconds (user+sys of this process, all threads, from resource.getrusage)
and wall seconds, best of --rounds (rounds alternate the variants, so load on the shared
machine hits all of them alike; CPU seconds are the more robust figure), then the cosine
agreement of every variant with the float32 `torch` reference at default threads. No
embedding cache is used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from kg.embeddings import BACKENDS, Embedder  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared/data"
PERSPECTRA = SHARED / "perspectra/Perspectra.json"
PHYSICS = SHARED / "perspectivebench/raw/physics_chunks.json"


def expansions(path: Path, n: int) -> list[str]:
    topics = json.loads(path.read_text(encoding="utf-8"))
    out = [
        e
        for t in topics
        for side in ("pros", "cons")
        for o in t.get(side, [])
        for e in o.get("expanded", [])
    ]
    return out[:n]


def sentences(path: Path, n: int) -> list[str]:
    chunks = json.loads(path.read_text(encoding="utf-8"))
    out = [s.strip() for c in chunks for s in re.split(r"(?<=[.!?])\s+", c["text"])]
    return [s for s in out if len(s.split()) >= 3][:n]


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--backends", default="torch,bf16")
    ap.add_argument(
        "--threads",
        default="0,1",
        help="encoding thread counts (batches side by side); 0 = one per core",
    )
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--perspectra", type=Path, default=PERSPECTRA)
    ap.add_argument("--physics", type=Path, default=PHYSICS)
    args = ap.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if "torch" not in backends:
        backends.insert(0, "torch")  # the reference for the cosine agreement
    bad = [b for b in backends if b not in BACKENDS or b == "auto"]
    if bad:
        raise SystemExit(f"unknown backends {bad}; choose from torch, bf16")
    corpora = {
        "expansions": expansions(args.perspectra, args.n),
        "physics": sentences(args.physics, args.n),
    }

    threads = [int(t) for t in args.threads.split(",") if t.strip()] or [0]
    if 0 not in threads:
        threads.insert(0, 0)
    ref = "torch/t0"
    embedders: dict[str, Embedder] = {}
    for b in backends:
        c0, w0 = cpu_seconds(), time.perf_counter()
        first = None
        for t in threads:
            emb = Embedder(batch_size=args.batch_size, backend=b, threads=t)
            if first is not None:
                emb._model = first.model  # one model per backend: same weights
            emb.encode(["warm-up sentence for the embedding model."])
            first = first or emb
            embedders[f"{b}/t{t}"] = emb
        print(
            f"load+warm-up {b:6s} cpu {cpu_seconds() - c0:6.2f} s  "
            f"wall {time.perf_counter() - w0:6.2f} s"
        )

    best: dict[tuple[str, str], tuple[float, float]] = {}
    vecs: dict[tuple[str, str], np.ndarray] = {}
    for _ in range(args.rounds):
        for name, texts in corpora.items():
            for b, emb in embedders.items():
                c0, w0 = cpu_seconds(), time.perf_counter()
                vecs[b, name] = emb.encode(texts)
                cpu, wall = cpu_seconds() - c0, time.perf_counter() - w0
                old = best.get((b, name))
                best[b, name] = (min(cpu, old[0]), min(wall, old[1])) if old else (cpu, wall)

    print(
        f"\nbest of {args.rounds} round(s), batch size {args.batch_size}, "
        f"torch default threads {_torch_threads()} (t0), cpus {os.cpu_count()}"
    )
    print(
        f"{'corpus':11s} {'variant':9s} {'texts':>5s} {'texts/s':>8s} {'CPU s':>7s} "
        f"{'ms CPU/text':>11s} {'wall s':>7s} {'CPU vs torch':>12s} {'cos min':>9s} "
        f"{'cos mean':>9s}"
    )
    for name, texts in corpora.items():
        ref_cpu = best[ref, name][0]
        for b in embedders:
            cpu, wall = best[b, name]
            cos = np.einsum("ij,ij->i", vecs[b, name], vecs[ref, name])
            print(
                f"{name:11s} {b:9s} {len(texts):5d} {len(texts) / wall:8.1f} {cpu:7.2f} "
                f"{1000 * cpu / len(texts):11.1f} {wall:7.2f} {cpu / ref_cpu:12.2f} "
                f"{cos.min():9.6f} {cos.mean():9.6f}"
            )


def _torch_threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    main()
