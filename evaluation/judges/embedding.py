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

from evaluation.judges.base import BatchItem, Judge
from evaluation.judges.vectors import embed
from evaluation.models import ClaimResult, EvalQuestion, Fact, JudgeResult, PathVerdict
from evaluation.responders.tokens import split_sentences

DEFAULT_PATH_THRESHOLD = 0.8
DEFAULT_CLAIM_THRESHOLD = 0.7


RELEVANCY_METHOD = "embedding-cosine(answer sentences,question)"


def _claims(
    sentences: list[str], s_vec: np.ndarray, gt: list[Fact], g_vec: np.ndarray, threshold: float
) -> list[ClaimResult]:
    """Each answer sentence as a claim, supported by its nearest ground-truth sentence at
    cosine >= threshold."""
    claims: list[ClaimResult] = []
    if not sentences:
        return claims
    sim = s_vec @ g_vec.T if len(gt) else np.zeros((len(sentences), 0))
    for k, sentence in enumerate(sentences):
        j = int(sim[k].argmax()) if len(gt) else -1
        ok = len(gt) > 0 and sim[k, j] >= threshold
        claims.append(
            ClaimResult(
                text=sentence,
                supported=bool(ok),
                supporting=gt[j].text if ok else None,
                supporting_fact=gt[j].uid if ok else None,
            )
        )
    return claims


def _relevancy(s_vec: np.ndarray, q_vec: np.ndarray) -> float:
    """Cosine between the question and the mean of the answer's sentence vectors.

    The mean covers the whole answer: the encoder reads at most 256 word pieces, so a long
    answer encoded whole would be judged on its opening only (and the sentences are encoded
    for the claims anyway, so this costs no second pass over the answer)."""
    if not len(s_vec):
        return 0.0
    mean = s_vec.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return float(mean @ q_vec) / norm if norm > 0 else 0.0


class SentenceVectors:
    """Vectors of every text a batch of answers needs, from one encoder call: each answer's
    sentences, each question, each ground-truth fact and (for the embedding judge) each edge
    reason, every distinct text once (a question's facts are shared by all its answers)."""

    def __init__(self, texts: list[str]) -> None:
        unique = list(dict.fromkeys(texts))
        vecs = embed(unique) if unique else np.zeros((0, 384), dtype=np.float32)
        self._row = {t: i for i, t in enumerate(unique)}
        self._vecs = vecs

    def of(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._vecs.shape[1] if self._vecs.ndim == 2 else 384))
        return self._vecs[[self._row[t] for t in texts]]


def claims_and_relevancy_batch(
    items: list[BatchItem], threshold: float
) -> list[tuple[list[ClaimResult], float]]:
    """Claims and relevancy of many answers with one encoder call for all of them."""
    sentences = [split_sentences(answer) if answer.strip() else [] for _, answer, _ in items]
    vectors = SentenceVectors(
        [t for (q, _, gt), ss in zip(items, sentences, strict=True) for t in (*ss, q.text)]
        + [f.text for _, _, gt in items for f in gt]
    )
    out = []
    for (q, _, gt), ss in zip(items, sentences, strict=True):
        s_vec = vectors.of(ss)
        claims = _claims(ss, s_vec, gt, vectors.of([f.text for f in gt]), threshold)
        out.append((claims, _relevancy(s_vec, vectors.of([q.text])[0])))
    return out


def claims_and_relevancy(
    q: EvalQuestion, answer: str, gt: list[Fact], threshold: float
) -> tuple[list[ClaimResult], float]:
    """Each answer sentence as a claim, and the answer/question cosine (one answer)."""
    return claims_and_relevancy_batch([(q, answer, gt)], threshold)[0]


class EmbeddingJudge(Judge):
    batches = True

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
        return self.judge_batch([(q, answer, gt)])[0]

    def judge_batch(self, items: list[BatchItem]) -> list[JudgeResult]:
        """Many answers with one encoder call (sentences, reasons, facts, questions)."""
        sentences = [split_sentences(a) if a.strip() else [] for _, a, _ in items]
        vectors = SentenceVectors(
            [
                t
                for (q, _, _), ss in zip(items, sentences, strict=True)
                for t in (*ss, q.text, *(e for p in q.paths for e in p.edge_evidence()))
            ]
            + [f.text for _, _, gt in items for f in gt]
        )
        return [
            self._one(q, ss, gt, vectors) for (q, _, gt), ss in zip(items, sentences, strict=True)
        ]

    def _one(
        self, q: EvalQuestion, sentences: list[str], gt: list[Fact], vectors: SentenceVectors
    ) -> JudgeResult:
        edge_texts = [t for p in q.paths for t in p.edge_evidence()]
        n_s, n_e = len(sentences), len(edge_texts)
        s_vec = vectors.of(sentences)
        e_vec = vectors.of(edge_texts)
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
            result.verdicts.append(
                PathVerdict(
                    path_uid=p.uid,
                    present=all(edges),
                    partial=sum(edges) / p.hops,
                    edges_present=edges,
                    edge_sentences=spans,
                    reason=f"best sentence cosine per edge: {', '.join(f'{s:.2f}' for s in sims)}",
                )
            )
        g_vec = vectors.of([f.text for f in gt])
        result.claims = _claims(sentences, s_vec, gt, g_vec, self.claim_threshold)
        result.relevancy = _relevancy(s_vec, vectors.of([q.text])[0])
        result.relevancy_method = RELEVANCY_METHOD
        return result
