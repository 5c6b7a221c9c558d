"""Offline judges from sentence embeddings — honest baselines, named as such in reports.

- path judge: an edge counts as reproduced when some answer sentence has cosine >= threshold
  with the edge's evidence (its reason); a path is present when all its edges are; the best
  sentence per edge is kept (`edge_sentences`, shown highlighted in the HTML report);
- faithfulness check: each answer sentence is a claim, supported when its nearest ground-truth
  sentence has cosine >= threshold;
- relevancy: cosine between the answer and the question (no regenerated questions).
"""

from __future__ import annotations

import asyncio

import numpy as np

from evaluation.judges.vectors import embed
from evaluation.models import ClaimResult, EvalQuestion, Fact, JudgeResult, PathVerdict
from evaluation.tokens import split_sentences

DEFAULT_PATH_THRESHOLD = 0.8
DEFAULT_CLAIM_THRESHOLD = 0.7


def claims_and_relevancy(
    q: EvalQuestion, answer: str, gt: list[Fact], threshold: float
) -> tuple[list[ClaimResult], float]:
    """Each answer sentence as a claim (supported by its nearest ground-truth sentence at
    cosine >= threshold), and the answer/question cosine."""
    sentences = split_sentences(answer)
    vecs = embed([*sentences, *[f.text for f in gt], q.text, answer or " "])
    n_s, n_g = len(sentences), len(gt)
    s_vec, g_vec = vecs[:n_s], vecs[n_s : n_s + n_g]
    claims = []
    if n_s:
        sim = s_vec @ g_vec.T if n_g else np.zeros((n_s, 0))
        for k, sentence in enumerate(sentences):
            j = int(sim[k].argmax()) if n_g else -1
            ok = n_g > 0 and sim[k, j] >= threshold
            claims.append(
                ClaimResult(
                    text=sentence,
                    supported=bool(ok),
                    supporting=gt[j].text if ok else None,
                    supporting_fact=gt[j].uid if ok else None,
                )
            )
    relevancy = float(vecs[-1] @ vecs[-2]) if answer.strip() else 0.0
    return claims, relevancy


class EmbeddingJudge:
    offline = True

    def __init__(
        self,
        path_threshold: float = DEFAULT_PATH_THRESHOLD,
        claim_threshold: float = DEFAULT_CLAIM_THRESHOLD,
    ) -> None:
        self.path_threshold = path_threshold
        self.claim_threshold = claim_threshold
        self.name = f"baseline:embedding(path>={path_threshold},claim>={claim_threshold})"

    def prompt_names(self) -> list[str]:
        return []

    async def judge(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult:
        return await asyncio.to_thread(self.judge_sync, q, answer, gt)

    def judge_sync(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult:
        sentences = split_sentences(answer)
        edge_texts = [t for p in q.paths for t in p.edge_evidence()]
        texts = [*sentences, *edge_texts, *[f.text for f in gt], q.text, answer or " "]
        vecs = embed(texts)
        n_s, n_e, n_g = len(sentences), len(edge_texts), len(gt)
        s_vec = vecs[:n_s]
        e_vec = vecs[n_s : n_s + n_e]
        g_vec = vecs[n_s + n_e : n_s + n_e + n_g]
        q_vec, a_vec = vecs[-2], vecs[-1]
        result = JudgeResult(verdicts=[])
        # edges: best sentence match per edge evidence
        edge_sim = e_vec @ s_vec.T if n_s else np.zeros((n_e, 0))
        best_edge = edge_sim.max(axis=1) if n_s else np.zeros(n_e)
        best_sentence = edge_sim.argmax(axis=1) if n_s else np.zeros(n_e, dtype=int)
        i = 0
        for p in q.paths:
            sims = best_edge[i : i + p.hops]
            spans = [int(k) for k in best_sentence[i : i + p.hops]] if n_s else []
            i += p.hops
            edges = [bool(s >= self.path_threshold) for s in sims]
            present = all(edges)
            result.verdicts.append(
                PathVerdict(
                    path_uid=p.uid,
                    present=present,
                    partial=sum(edges) / p.hops,
                    edges_present=edges,
                    edge_sentences=spans,
                    reason=f"best sentence cosine per edge: {', '.join(f'{s:.2f}' for s in sims)}",
                )
            )
        if n_s:
            sim = s_vec @ g_vec.T if n_g else np.zeros((n_s, 0))
            for k, sentence in enumerate(sentences):
                j = int(sim[k].argmax()) if n_g else -1
                ok = n_g > 0 and sim[k, j] >= self.claim_threshold
                result.claims.append(
                    ClaimResult(
                        text=sentence,
                        supported=bool(ok),
                        supporting=gt[j].text if ok else None,
                        supporting_fact=gt[j].uid if ok else None,
                    )
                )
        result.relevancy = float(a_vec @ q_vec) if answer.strip() else 0.0
        result.relevancy_method = "embedding-cosine(answer,question)"
        return result
