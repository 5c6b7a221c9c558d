"""The LLM judge: path checklist (PAS), claim-level faithfulness, answer relevancy."""

from __future__ import annotations

import asyncio

import numpy as np
from pydantic import BaseModel, Field

from evaluation.judges.base import shuffled_paths
from evaluation.judges.vectors import embed
from evaluation.models import (
    ClaimResult,
    EvalPath,
    EvalQuestion,
    Fact,
    JudgeResult,
    PathVerdict,
)
from evaluation.prompting import JUDGE_PROMPTS
from kg.llm import LLMClient
from kg.prompt_files import load_prompt


class PathJudgement(BaseModel):
    path_id: str
    edges_present: list[bool] = Field(default_factory=list)
    present: bool
    reason: str = ""


class PathChecklistReply(BaseModel):
    verdicts: list[PathJudgement]


class ClaimJudgement(BaseModel):
    claim: str
    supported: bool
    source_id: str | None = None


class FaithfulnessReply(BaseModel):
    claims: list[ClaimJudgement]


class RelevancyReply(BaseModel):
    questions: list[str]


def _render_paths(ids: list[tuple[str, EvalPath]]) -> str:
    lines = []
    for pid, p in ids:
        lines.append(f"{pid}: {p.signature}")
        for i, ((a, label, b), why) in enumerate(zip(p.edges(), p.edge_evidence(), strict=True)):
            lines.append(f"  edge {i + 1}: {a} -- {label} --> {b} (meaning: {why})")
    return "\n".join(lines)


def _missing_check(expected: set[str]):
    def check(reply: PathChecklistReply) -> None:
        given = {v.path_id.strip() for v in reply.verdicts}
        missing = sorted(expected - given, key=lambda s: int(s[1:]) if s[1:].isdigit() else 0)
        if missing:
            raise ValueError(
                f"the reply has no verdict for path(s) {', '.join(missing)}: "
                "return exactly one verdict for every path id of the checklist"
            )

    return check


def map_path_verdicts(
    ids: list[tuple[str, EvalPath]], reply: PathChecklistReply, result: JudgeResult
) -> None:
    """Judge ids -> path verdicts; unknown ids rejected, duplicates counted (first kept)."""
    by_id = dict(ids)
    seen: set[str] = set()
    for v in reply.verdicts:
        pid = v.path_id.strip()
        path = by_id.get(pid)
        if path is None:
            result.rejected += 1
            continue
        if pid in seen:
            result.duplicates += 1
            continue
        seen.add(pid)
        edges = (list(v.edges_present) + [v.present] * path.hops)[: path.hops]
        partial = 1.0 if v.present else sum(edges) / path.hops
        result.verdicts.append(
            PathVerdict(
                path_uid=path.uid,
                present=v.present,
                partial=partial,
                reason=v.reason,
                edges_present=edges,
            )
        )
    missing = [pid for pid, _ in ids if pid not in seen]
    if missing:  # the client's check makes this unreachable unless called directly
        raise ValueError(f"judge reply missing paths {missing}")


def map_claims(sources: list[Fact], reply: FaithfulnessReply, result: JudgeResult) -> None:
    by_id = {f"S{i + 1}": f for i, f in enumerate(sources)}
    by_text = {f.text.strip(): f for f in sources}
    for c in reply.claims:
        fact = None
        if c.supported:
            sid = (c.source_id or "").strip().upper()
            sid = f"S{sid}" if sid.isdigit() else sid
            fact = by_id.get(sid) or by_text.get((c.source_id or "").strip())
            if fact is None:
                result.rejected_sources += 1
        result.claims.append(
            ClaimResult(
                text=c.claim,
                supported=fact is not None,
                supporting=fact.text if fact else None,
                supporting_fact=fact.uid if fact else None,
            )
        )


class LLMJudge:
    offline = False

    def __init__(
        self, client: LLMClient, *, relevancy_n: int = 3, seed: int = 0, faithfulness: bool = True
    ) -> None:
        self.client = client
        self.relevancy_n = relevancy_n
        self.seed = seed
        self.with_faithfulness = faithfulness
        self.name = f"llm:{client.config.model_name}"

    def prompt_names(self) -> list[str]:
        return list(JUDGE_PROMPTS)

    async def judge(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult:
        result = JudgeResult(verdicts=[])
        if not answer.strip():  # nothing to judge: no path present, no claim, no relevancy
            result.verdicts = [
                PathVerdict(
                    path_uid=p.uid,
                    present=False,
                    partial=0.0,
                    reason="empty answer",
                    edges_present=[False] * p.hops,
                )
                for p in q.paths
            ]
            result.relevancy, result.relevancy_method = (
                (0.0, "llm-questions") if self.relevancy_n else (None, None)
            )
            return result
        jobs = [self._paths(q, answer, result)]
        if self.with_faithfulness:
            jobs.append(self._faithfulness(answer, gt, result))
        if self.relevancy_n > 0:
            jobs.append(self._relevancy(q, answer, result))
        await asyncio.gather(*jobs)
        return result

    def _count(self, reply, result: JudgeResult) -> None:
        result.prompt_tokens += reply.usage.prompt_tokens
        result.completion_tokens += reply.usage.completion_tokens

    async def _paths(self, q: EvalQuestion, answer: str, result: JudgeResult) -> None:
        ids = shuffled_paths(q, self.seed)
        keys = dict.fromkeys(k for _, p in ids for k in p.keys)
        concepts = "\n".join(f"{k}: {q.concepts.get(k) or '(no summary)'}" for k in keys)
        prompt = load_prompt("eval/judge_paths")
        text = prompt.render(
            question=q.text, answer=answer, concepts=concepts, paths=_render_paths(ids)
        )
        reply = await self.client.complete(
            [{"role": "user", "content": text}],
            schema=PathChecklistReply,
            prompt_name=prompt.name,
            prompt_hash=prompt.hash,
            check=_missing_check({pid for pid, _ in ids}),
        )
        self._count(reply, result)
        map_path_verdicts(ids, reply.parsed, result)

    async def _faithfulness(self, answer: str, gt: list[Fact], result: JudgeResult) -> None:
        prompt = load_prompt("eval/judge_faithfulness")
        sources = "\n".join(f"S{i + 1}: {f.text}" for i, f in enumerate(gt)) or "(none)"
        reply = await self.client.complete(
            [{"role": "user", "content": prompt.render(sources=sources, answer=answer)}],
            schema=FaithfulnessReply,
            prompt_name=prompt.name,
            prompt_hash=prompt.hash,
        )
        self._count(reply, result)
        map_claims(gt, reply.parsed, result)

    async def _relevancy(self, q: EvalQuestion, answer: str, result: JudgeResult) -> None:
        prompt = load_prompt("eval/judge_relevancy")
        reply = await self.client.complete(
            [{"role": "user", "content": prompt.render(n=self.relevancy_n, answer=answer)}],
            schema=RelevancyReply,
            prompt_name=prompt.name,
            prompt_hash=prompt.hash,
        )
        self._count(reply, result)
        generated = [s for s in reply.parsed.questions if s.strip()][: self.relevancy_n]
        result.relevancy_method = "llm-questions"
        if not generated:
            result.relevancy = 0.0
            return
        vecs = await asyncio.to_thread(embed, [q.text, *generated])
        result.relevancy = float(np.mean(vecs[1:] @ vecs[0]))
