"""Stage 9: focused evidence. The minimal set of existing facts that supports a question's
target paths. LLM route: `prompts/pipeline/evidence.md`; every sentence must quote an existing
fact of the question's concepts verbatim (checked; others rejected and counted). Offline
route: facts of the path's concepts ranked by similarity to the target reasons, the best of
each concept first."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, Field

from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import BuildLLM, RejectedReply
from construction.pipeline.stage import Stage

STAGE = "evidence"


class EvidenceReply(BaseModel):
    evidence: list[str] = Field(min_length=1, description="fact sentences quoted verbatim")


def norm(text: str) -> str:
    return " ".join(text.split()).strip().lower()


def offline_pick(candidates: list[dict], scores: np.ndarray, limit: int) -> list[int]:
    """Indices: the best fact of each concept, then the best of the rest, up to `limit`
    (at least one per concept)."""
    order = list(np.argsort(-scores, kind="stable"))
    chosen: list[int] = []
    seen: set[str] = set()
    for i in order:
        if candidates[i]["concept"] not in seen:
            seen.add(candidates[i]["concept"])
            chosen.append(int(i))
    for i in order:
        if len(chosen) >= limit:
            break
        if int(i) not in chosen:
            chosen.append(int(i))
    return sorted(chosen, key=lambda i: -scores[i])


def quoted_facts(reply: EvidenceReply, candidates: list[dict], rep: StageReport) -> list[str]:
    """Uids of the quoted facts, in reply order; each sentence quoting no fact is rejected."""
    by_text = {norm(c["text"]): c["uid"] for c in candidates}
    out: list[str] = []
    for sentence in reply.evidence:
        uid = by_text.get(norm(sentence))
        if uid is None:
            rep.reject("evidence_not_a_fact")
            continue
        if uid not in out:
            out.append(uid)
    return out


def _todo(ctx: BuildContext, rep: StageReport) -> list[dict]:
    questions = ctx.store.query(
        "pipeline/evidence_inputs", domain=ctx.domain, generation=ctx.generation
    )
    return ctx.pending(STAGE, rep, questions)


class Evidence(Stage):
    name = STAGE
    inputs = ("questions", "embeddings")
    resume_key = "question"
    reset = ("pipeline/delete_evidence",)
    prompt = "evidence"

    def offline(self, ctx: BuildContext) -> StageReport:
        from kg.embeddings import get_embedder

        with ctx.stage(STAGE) as rep:
            todo = _todo(ctx, rep)
            embedder = get_embedder(ctx.config.embedding_model)
            vec_of = {
                r["uid"]: np.asarray(r["embedding"], dtype=np.float32)
                for r in ctx.store.query("pipeline/fact_vectors", domain=ctx.domain)
            }
            prov = ctx.provenance(
                STAGE, source="offline: concept facts ranked by similarity to the target reasons"
            )
            # One encode call for every reason (cached by content): per-question calls are slow.
            all_reasons = sorted({r for q in todo for rs in q["reasons"] for r in rs if r})
            rvec_of = dict(zip(all_reasons, embedder.encode(all_reasons), strict=True))
            rows: list[dict] = []
            bar = ctx.bar("evidence", len(todo))
            for q in todo:
                bar.advance()
                cands = [c for c in q["candidates"] if c["uid"] in vec_of]
                reasons = [r for rs in q["reasons"] for r in rs if r]
                if not cands or not reasons:
                    rep.skipped += 1
                    continue
                rvec = np.stack([rvec_of[r] for r in reasons])
                fvec = np.stack([vec_of[c["uid"]] for c in cands])
                scores = (fvec @ rvec.T).max(axis=1)
                picked = offline_pick(cands, scores, ctx.config.evidence_per_question)
                facts = [cands[i]["uid"] for i in picked]
                rows.append(evidence_row(q["uid"], facts, prov))
            bar.close()
            for start in range(0, len(rows), 200):
                part = rows[start : start + 200]
                ctx.write_items(
                    STAGE,
                    [("pipeline/write_evidence", {"rows": part})],
                    [r["question"] for r in part],
                )
            rep.written = sum(len(r["facts"]) for r in rows)
            return rep

    def pending_items(self, ctx: BuildContext, rep: StageReport) -> list[dict]:
        return _todo(ctx, rep)

    def slots(self, ctx: BuildContext, item: dict) -> dict[str, object]:
        q = item
        paths = "\n".join(
            f"- {sig}\n  reasons: {' | '.join(r for r in rs if r)}"
            for sig, rs in zip(q["signatures"], q["reasons"], strict=True)
        )
        return {
            "question": q["text"],
            "paths": paths,
            "facts": "\n".join(f"- {c['text']}" for c in q["candidates"]),
            "limit": ctx.config.evidence_per_question,
        }

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        with ctx.stage(STAGE) as rep:
            todo = self.pending_items(ctx, rep)
            prov = self.model_provenance(ctx, model)

            async def one(q: dict) -> None:
                reply = await model.ask("evidence", EvidenceReply, **self.slots(ctx, q))
                uids = quoted_facts(reply, q["candidates"], rep)
                if not uids:
                    raise RejectedReply("no_valid_evidence")
                row = evidence_row(q["uid"], uids, prov)
                ctx.write_items(STAGE, [("pipeline/write_evidence", {"rows": [row]})], [q["uid"]])
                rep.written += len(uids)

            self.each_item(ctx, rep, model, todo, one)
            return rep


def evidence_row(question: str, facts: list[str], provenance: str) -> dict:
    """A question's focused evidence: its facts' uids, best first."""
    return {
        "question": question,
        "provenance": provenance,
        "facts": [{"uid": u, "rank": r} for r, u in enumerate(facts)],
    }
