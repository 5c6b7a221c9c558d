"""Where the offline judge's encoder time goes, on the judge gold answers' sentences.

    python benchmarks/encoder_cost.py [--gold FILE] [--repeat 2]

1. CPU per sentence with sentence-transformers' own batching (sorted by characters, 64 a batch)
   and with `kg.embeddings.Embedder` (sorted by word pieces, 32 a batch), no disk cache, and the
   largest difference between their vectors.
2. int8 dynamic quantization of the linear layers (torch.ao, per-tensor and per-channel): CPU
   and the cosine of its vectors to the fp32 ones (claims are decided at cosine 0.7).
3. The GFLOPS one thread gets from torch's fp32 `linear` at the encoder's shapes, and the
   matrix-product floor that gives per word piece.

One torch thread (the setting for a shared machine). Prints the load average: CPU time rises
with load (the cores' caches and memory bandwidth are shared).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation.responders.tokens import split_sentences  # noqa: E402
from kg.embeddings import DEFAULT_MODEL, Embedder, model_location  # noqa: E402

HIDDEN, FFN, LAYERS = 384, 1536, 6  # all-MiniLM-L6-v2


def cpu(f: Callable[[], np.ndarray], repeat: int) -> tuple[float, np.ndarray]:
    """Least CPU seconds of `repeat` runs (the least disturbed by other jobs), and the result."""
    best, out = float("inf"), np.zeros(0)
    for _ in range(repeat):
        c0 = time.process_time()
        out = f()
        best = min(best, time.process_time() - c0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gold", type=Path, default=ROOT.parent / "shared/data/judge-gold/dev.jsonl")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    with args.gold.open(encoding="utf-8") as fh:
        sents = [
            s for line in fh if line.strip() for s in split_sentences(json.loads(line)["answer"])
        ]
    emb = Embedder(backend="torch", threads=1)
    model = emb.model
    pieces = sum(len(i) for i in model.tokenizer(sents, truncation=True)["input_ids"])
    print(
        f"{len(sents)} sentences, {pieces} word pieces; 1 thread; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)"
    )
    model.encode(sents[:8])

    def st_encode(m: object = model) -> np.ndarray:
        return m.encode(sents, batch_size=64, normalize_embeddings=True)  # type: ignore[attr-defined]

    t_st, ref = cpu(st_encode, args.repeat)
    t_kg, ours = cpu(lambda: emb._embed(sents, False), args.repeat)
    print(f"1. sentence-transformers batching: {1000 * t_st / len(sents):.1f} ms CPU per sentence")
    print(
        f"   Embedder (sorted by word pieces): {1000 * t_kg / len(sents):.1f} ms CPU per sentence "
        f"({100 * (1 - t_kg / t_st):.0f}% less); largest difference {np.abs(ours - ref).max():.1e}"
    )

    from sentence_transformers import SentenceTransformer
    from torch.ao.quantization import default_dynamic_qconfig, per_channel_dynamic_qconfig

    for name, qconfig in (
        ("per-tensor", default_dynamic_qconfig),
        ("per-channel", per_channel_dynamic_qconfig),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = torch.ao.quantization.quantize_dynamic(
                SentenceTransformer(model_location(DEFAULT_MODEL), device="cpu"),
                {torch.nn.Linear: qconfig},
                dtype=torch.qint8,
            )
        q.encode(sents[:8])
        t_q, v = cpu(lambda q=q: st_encode(q), args.repeat)
        cos = np.einsum("ij,ij->i", v, ref)
        print(
            f"2. int8 dynamic ({name}): {1000 * t_q / len(sents):.1f} ms CPU per sentence "
            f"({t_st / t_q:.1f}x less than fp32); cosine to fp32 min {cos.min():.3f}, "
            f"mean {cos.mean():.3f}"
        )

    a, w = torch.randn(32 * 34, HIDDEN), torch.randn(FFN, HIDDEN)
    n = 50
    t_lin, _ = cpu(lambda: np.asarray([torch.nn.functional.linear(a, w) for _ in range(n)][-1]), 1)
    gflops = n * 2 * a.shape[0] * HIDDEN * FFN / t_lin / 1e9
    per_piece = 2 * LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN)
    print(
        f"3. torch fp32 linear, one thread: {gflops:.0f} GFLOPS; the encoder's matrix products "
        f"are {per_piece / 1e6:.1f} MFLOP per word piece: {1e3 * per_piece / gflops / 1e9:.2f} ms "
        f"CPU per word piece at the least"
    )
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
