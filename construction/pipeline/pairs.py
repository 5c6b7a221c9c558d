"""Stage 5: candidate pairs. Every concept pair scored Score = S_ent + S_prox + S_sem, set-wise
with matrix products (no Python loop over pairs):

- S_ent: shared entities between the two concepts' facts (>=3 -> +5, 1-2 -> +4);
- S_prox: fact pairs of the two concepts within +-5 chunks in the same source
  (>=5 -> +3, 2-4 -> +2, 1 -> +1);
- S_sem: soft-membership bridge, >=3 facts each way with probability > 0.05 for the other
  concept (+1).

Pairs with Score >= 4 (configurable) are kept, optionally only the top k per concept.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.stage import Stage
from kg.ids import concept_uid, content_uid, fingerprint

STAGE = "pairs"


class PairScores(BaseModel):
    keys: list[str]
    shared: list[list[int]]
    near: list[list[int]]
    bridge: list[list[bool]]

    def score(self) -> np.ndarray:
        shared, near = np.asarray(self.shared), np.asarray(self.near)
        s_ent = np.where(shared >= 3, 5, np.where(shared >= 1, 4, 0))
        s_prox = np.where(near >= 5, 3, np.where(near >= 2, 2, np.where(near >= 1, 1, 0)))
        return s_ent + s_prox + np.asarray(self.bridge, dtype=int)


def score_matrices(facts: list[dict], cfg: BuildConfig) -> PairScores:
    keys = sorted({f["concept"] for f in facts}, key=lambda k: (len(k), k))
    kidx = {k: i for i, k in enumerate(keys)}
    n = len(keys)
    assign = np.zeros((len(facts), n))
    for i, f in enumerate(facts):
        assign[i, kidx[f["concept"]]] = 1
    # S_ent: concept x entity incidence, shared = E E^T.
    ents = sorted({e for f in facts for e in f["entities"]})
    eidx = {e: i for i, e in enumerate(ents)}
    inc = np.zeros((n, len(ents)))
    for f in facts:
        for e in f["entities"]:
            inc[kidx[f["concept"]], eidx[e]] = 1
    shared = inc @ inc.T
    # S_prox: concept x (source, ordinal) counts, near = P W P^T with W the +-window band.
    slots = sorted({(s, o) for f in facts for s, o in f["positions"]})
    sidx = {p: i for i, p in enumerate(slots)}
    pos = np.zeros((n, len(slots)))
    for f in facts:
        for p in {tuple(p) for p in f["positions"]}:
            pos[kidx[f["concept"]], sidx[p]] += 1
    src = np.array([s for s, _ in slots])
    ordn = np.array([o for _, o in slots])
    band = (
        (src[:, None] == src[None, :])
        & (np.abs(ordn[:, None] - ordn[None, :]) <= cfg.proximity_window)
    ).astype(float)
    near = pos @ band @ pos.T
    # S_sem: cross[i, j] = facts of concept i with soft membership > threshold in concept j.
    soft = np.zeros((len(facts), n))
    for i, f in enumerate(facts):
        for k, p in zip(f["soft_keys"], f["soft_probs"], strict=True):
            if k in kidx:
                soft[i, kidx[k]] = p
    cross = assign.T @ (soft > cfg.soft_threshold)
    bridge = (cross >= cfg.soft_min_facts) & (cross.T >= cfg.soft_min_facts)
    return PairScores(
        keys=keys,
        shared=shared.astype(int).tolist(),
        near=near.astype(int).tolist(),
        bridge=bridge.tolist(),
    )


def kept_pairs(scores: PairScores, cfg: BuildConfig) -> list[tuple[int, int, int]]:
    """(i, j, score) with i < j, score >= min_pair_score, optionally top-k per concept."""
    n = len(scores.keys)
    if n < 2:  # no pair to score (the empty matrices are 1-dimensional)
        return []
    total = scores.score()
    iu, ju = np.triu_indices(n, k=1)
    keep = total[iu, ju] >= cfg.min_pair_score
    pairs = [(int(i), int(j), int(total[i, j])) for i, j in zip(iu[keep], ju[keep], strict=True)]
    if cfg.top_k_pairs:
        allowed: set[tuple[int, int]] = set()
        for c in range(n):
            mine = sorted((p for p in pairs if c in p[:2]), key=lambda p: (-p[2], p[0], p[1]))
            allowed.update((p[0], p[1]) for p in mine[: cfg.top_k_pairs])
        pairs = [p for p in pairs if (p[0], p[1]) in allowed]
    return pairs


def run(ctx: BuildContext) -> StageReport:
    with ctx.stage(STAGE) as rep:
        cfg = ctx.config
        facts = ctx.store.query(
            "pipeline/pair_inputs", domain=ctx.domain, generation=ctx.generation
        )
        params = (
            cfg.min_pair_score,
            cfg.top_k_pairs,
            cfg.proximity_window,
            cfg.soft_threshold,
            cfg.soft_min_facts,
        )
        input_hash = content_uid(
            fingerprint([f"{f['uid']}:{f['concept']}" for f in facts]), *params
        )
        if ctx.resumed_domain(STAGE, rep, input_hash):
            return rep
        scores = (
            score_matrices(facts, cfg)
            if facts
            else PairScores(keys=[], shared=[], near=[], bridge=[])
        )
        shared, near, bridge = (
            np.asarray(scores.shared),
            np.asarray(scores.near),
            np.asarray(scores.bridge),
        )
        prov = ctx.provenance(STAGE, source="offline: S_ent + S_prox + S_sem")
        # A pair an earlier generation already holds stays its own (`--extend` reuses concepts).
        kept = ctx.earlier_links("CANDIDATE")
        rows = []
        for i, j, total in kept_pairs(scores, cfg):
            if f"{scores.keys[i]}|{scores.keys[j]}" in kept:
                continue
            s_ent = 5 if shared[i, j] >= 3 else 4 if shared[i, j] >= 1 else 0
            s_prox = 3 if near[i, j] >= 5 else 2 if near[i, j] >= 2 else 1 if near[i, j] else 0
            rows.append(
                {
                    "a": concept_uid(ctx.domain, scores.keys[i]),
                    "b": concept_uid(ctx.domain, scores.keys[j]),
                    "score": total,
                    "s_ent": s_ent,
                    "s_prox": s_prox,
                    "s_sem": int(bridge[i, j]),
                    "shared_entities": int(shared[i, j]),
                    "near_fact_pairs": int(near[i, j]),
                    "domain": ctx.domain,
                    "provenance": prov,
                }
            )
        n = len(scores.keys)
        rep.note(
            f"{len(rows)} of {n * (n - 1) // 2} concept pairs kept (score >= {cfg.min_pair_score})"
        )
        rep.counts["candidate_pairs"] = len(rows)
        ctx.write_items(
            STAGE,
            [
                (
                    "pipeline/delete_candidates",
                    {"domain": ctx.domain, "generation": ctx.generation},
                ),
                ("pipeline/write_candidates", {"rows": rows, "generation": ctx.generation}),
            ],
            ["domain"],
            input_hash,
        )
        rep.written = len(rows)
        return rep


class Pairs(Stage):
    """No model step: the offline implementation serves both routes."""

    name = STAGE
    inputs = ("concepts",)
    reset = ("pipeline/delete_candidates", "pipeline/delete_relations", "pipeline/delete_paths")
    domain_level = True

    def offline(self, ctx: BuildContext) -> StageReport:
        return run(ctx)
