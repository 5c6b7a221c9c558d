"""The LLM judge: path checklist (PAS), claim-level faithfulness, answer relevancy.

The path checklist: the judge model gets the question, the answer, the concepts' summaries and
the paths under neutral ids in a seeded shuffled order, and replies with one verdict per path
in a JSON object whose schema names every id of the checklist (sent as the request's
`response_format`, so a server that constrains decoding by the schema cannot leave a path out).
Replies from servers that ignore the schema are parsed leniently (a list of verdicts, one bare
verdict, `{"P1": true}`). A path the reply gives no verdict on, even after the one repair
request, is a failed judgement: listed in `JudgeResult.failed_paths`, never read as absent.

Granularity `answer` asks one call for all paths; `path` one call per path (small models lose
track of long checklists). `votes` > 1 asks each call N times at a temperature above zero, each
vote with its own path order, and takes the majority (evaluation/judges/votes.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, Field, model_validator

from evaluation.judges.base import Judge, shuffled_paths
from evaluation.judges.vectors import embed
from evaluation.judges.votes import edge_majority, majority
from evaluation.models import (
    ClaimResult,
    EvalPath,
    EvalQuestion,
    Fact,
    JudgeResult,
    PathVerdict,
)
from evaluation.responders.prompting import JUDGE_PROMPTS
from kg.llm import LLMClient, StructuredOutputError, parse_reply
from kg.prompt_files import Prompt, load_prompt

if TYPE_CHECKING:
    from kg.llm.client import LLMReply

Granularity = Literal["answer", "path"]
GRANULARITIES: tuple[str, ...] = ("answer", "path")
# Votes need samples that can differ: the judge's own temperature when it is above zero,
# else this one.
VOTE_TEMPERATURE = 0.7
REASON_MAX_CHARS = 300  # in the schema: a small model's reason cannot ramble to max_tokens
_PATH_ID = re.compile(r"^P\d+$")


class JudgementFailed(StructuredOutputError):
    """The judge gave no usable verdict on some paths of an answer (after every vote and the
    repair request): the answer is not scored (counted as failed, resumable)."""


class PathJudgement(BaseModel):
    path_id: str = ""
    reason: str = ""
    edges_present: list[bool] = Field(default_factory=list)
    present: bool


class PathChecklistReply(BaseModel):
    verdicts: list[PathJudgement]

    @model_validator(mode="before")
    @classmethod
    def _other_shapes(cls, data: Any) -> Any:
        """The requested shape `{"P1": {...}, "P2": {...}}`, and what servers that ignore the
        schema send instead: `{"verdicts": [...]}`, a bare list of verdicts, one verdict
        object, or `{"P1": true}`."""
        if isinstance(data, list):
            return {"verdicts": data}
        if not isinstance(data, dict):
            return data
        if isinstance(data.get("verdicts"), dict):
            data = data["verdicts"]
        elif "verdicts" in data:
            return data
        if "present" in data:  # one bare verdict (per-path calls)
            return {"verdicts": [data]}
        keyed = {str(k).strip(): v for k, v in data.items() if _PATH_ID.match(str(k).strip())}
        if keyed:
            return {
                "verdicts": [
                    {"path_id": k, **v} if isinstance(v, dict) else {"path_id": k, "present": v}
                    for k, v in keyed.items()
                ]
            }
        return data


class ClaimJudgement(BaseModel):
    claim: str
    supported: bool
    source_id: str | None = None


class FaithfulnessReply(BaseModel):
    claims: list[ClaimJudgement]


class RelevancyReply(BaseModel):
    questions: list[str]


def checklist_schema(ids: list[tuple[str, EvalPath]]) -> dict[str, Any]:
    """The JSON schema of one checklist reply: an object with one required verdict per path id
    (reason first, so the model explains before it decides; one boolean per edge)."""

    def verdict(p: EvalPath) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "reason": {"type": "string", "maxLength": REASON_MAX_CHARS},
                "edges_present": {
                    "type": "array",
                    "items": {"type": "boolean"},
                    "minItems": p.hops,
                    "maxItems": p.hops,
                },
                "present": {"type": "boolean"},
            },
            "required": ["reason", "edges_present", "present"],
            "additionalProperties": False,
        }

    return {
        "type": "object",
        "properties": {pid: verdict(p) for pid, p in ids},
        "required": [pid for pid, _ in ids],
        "additionalProperties": False,
    }


def _render_paths(ids: list[tuple[str, EvalPath]]) -> str:
    lines = []
    for pid, p in ids:
        lines.append(f"{pid}: {p.signature}")
        for i, ((a, label, b), why) in enumerate(zip(p.edges(), p.edge_evidence(), strict=True)):
            lines.append(f"  edge {i + 1}: {a} -- {label} --> {b} (meaning: {why})")
    return "\n".join(lines)


def _id_order(pid: str) -> int:
    return int(pid[1:]) if pid[1:].isdigit() else 0


def _verdict_id(v: PathJudgement, ids: list[str]) -> str:
    """The path id a verdict names; a verdict naming none answers a one-path checklist."""
    return v.path_id.strip() or (ids[0] if len(ids) == 1 else "")


def _missing_check(expected: set[str]) -> Callable[[PathChecklistReply], None]:
    def check(reply: PathChecklistReply) -> None:
        given = {_verdict_id(v, sorted(expected)) for v in reply.verdicts}
        missing = sorted(expected - given, key=_id_order)
        if missing:
            raise ValueError(
                f"the reply has no verdict for path(s) {', '.join(missing)}: "
                "return exactly one verdict for every path id of the checklist"
            )

    return check


def map_path_verdicts(
    ids: list[tuple[str, EvalPath]], reply: PathChecklistReply, result: JudgeResult
) -> dict[str, PathJudgement]:
    """Judge ids -> the reply's verdict per path uid; unknown ids rejected, duplicates counted
    (first kept). Paths the reply leaves out are absent from the mapping (failed, not absent)."""
    by_id = dict(ids)
    out: dict[str, PathJudgement] = {}
    for v in reply.verdicts:
        pid = _verdict_id(v, list(by_id))
        path = by_id.get(pid)
        if path is None:
            result.rejected += 1
            continue
        if path.uid in out:
            result.duplicates += 1
            continue
        out[path.uid] = v
    return out


def path_verdict(
    path: EvalPath, votes: list[PathJudgement], result: JudgeResult, voting: bool = False
) -> PathVerdict:
    """The verdict on a path from its valid votes (one vote: that vote). `voting`: the judge
    asked several votes, whose decisions the verdict keeps (for its self-agreement)."""
    present, tie = majority([v.present for v in votes])
    result.vote_ties += tie
    edge_votes = [(list(v.edges_present) + [v.present] * path.hops)[: path.hops] for v in votes]
    edges = edge_votes[0] if len(votes) == 1 else edge_majority(edge_votes, path.hops)
    reason = next((v.reason for v in votes if v.present == present), votes[0].reason)
    return PathVerdict(
        path_uid=path.uid,
        present=present,
        partial=1.0 if present else sum(edges) / path.hops,
        reason=reason,
        edges_present=edges,
        votes=[v.present for v in votes] if voting else [],
    )


def judge_name(model: str, votes: int = 1, granularity: str = "answer") -> str:
    """The judge's name in runs and validations: a voting or per-path judge is another
    instrument than the plain one, validated on its own (`llm:gpt-4o[path,votes=3]`)."""
    extra = [granularity] if granularity != "answer" else []
    extra += [f"votes={votes}"] if votes > 1 else []
    return f"llm:{model}" + (f"[{','.join(extra)}]" if extra else "")


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


def _checklist_text(
    q: EvalQuestion, answer: str, ids: list[tuple[str, EvalPath]]
) -> tuple[Prompt, str]:
    """The checklist prompt and its text for these paths of the question."""
    keys = dict.fromkeys(k for _, p in ids for k in p.keys)
    concepts = "\n".join(f"{k}: {q.concepts.get(k) or '(no summary)'}" for k in keys)
    prompt = load_prompt("eval/judge_paths")
    text = prompt.render(
        question=q.text, answer=answer, concepts=concepts, paths=_render_paths(ids)
    )
    return prompt, text


def _faithfulness_text(answer: str, gt: list[Fact]) -> tuple[Prompt, str]:
    prompt = load_prompt("eval/judge_faithfulness")
    sources = "\n".join(f"S{i + 1}: {f.text}" for i, f in enumerate(gt)) or "(none)"
    return prompt, prompt.render(sources=sources, answer=answer)


def _relevancy_text(n: int, answer: str) -> tuple[Prompt, str]:
    prompt = load_prompt("eval/judge_relevancy")
    return prompt, prompt.render(n=n, answer=answer)


class LLMJudge(Judge):
    offline = False

    def __init__(
        self,
        client: LLMClient,
        *,
        relevancy_n: int = 3,
        seed: int = 0,
        faithfulness: bool = True,
        votes: int = 1,
        granularity: Granularity = "answer",
    ) -> None:
        if votes < 1:
            raise ValueError(f"judge votes: at least 1 (got {votes})")
        if granularity not in GRANULARITIES:
            raise ValueError(f"judge granularity: answer or path (got {granularity!r})")
        self.client = client
        self.relevancy_n = relevancy_n
        self.seed = seed
        self.with_faithfulness = faithfulness
        self.votes = votes
        self.granularity = granularity
        self.name = judge_name(client.config.model_name, votes, granularity)

    def prompt_names(self) -> list[str]:
        return list(JUDGE_PROMPTS)

    async def aclose(self) -> None:
        await self.client.aclose()

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

    def _count(self, reply: LLMReply, result: JudgeResult) -> None:
        result.prompt_tokens += reply.usage.prompt_tokens
        result.completion_tokens += reply.usage.completion_tokens

    async def _paths(self, q: EvalQuestion, answer: str, result: JudgeResult) -> None:
        """Every vote (and, per path, every call) at once; then the majority per path."""
        calls = self._path_calls(q)
        replies = await asyncio.gather(
            *(self._checklist(q, answer, ids, vote, result) for vote, ids in calls)
        )
        by_path: dict[str, list[PathJudgement]] = {p.uid: [] for p in q.paths}
        problems: dict[str, list[str]] = {p.uid: [] for p in q.paths}
        for (vote, ids), (got, problem) in zip(calls, replies, strict=True):
            for pid, p in ids:
                if p.uid in got:
                    by_path[p.uid].append(got[p.uid])
                else:
                    result.failed_votes += 1
                    problems[p.uid].append(f"vote {vote + 1} as {pid}: {problem}")
        for p in q.paths:
            if by_path[p.uid]:
                result.verdicts.append(path_verdict(p, by_path[p.uid], result, self.votes > 1))
                continue
            result.failed_votes -= len(problems[p.uid])  # the path failed: not a failed vote
            result.failed_paths.append(p.uid)
            result.failures.append(
                f"no verdict on path {p.signature}: {'; '.join(problems[p.uid])}"[:600]
            )

    def _path_calls(self, q: EvalQuestion) -> list[tuple[int, list[tuple[str, EvalPath]]]]:
        """The checklist calls of one answer: (vote, the paths under their ids) per call."""
        calls = []
        for vote in range(self.votes):
            ids = shuffled_paths(q, self.seed, vote)
            if self.granularity == "path":
                calls += [(vote, [("P1", p)]) for _, p in ids]
            else:
                calls.append((vote, ids))
        return calls

    def planned_requests(
        self, q: EvalQuestion, answer: str, gt: list[Fact]
    ) -> dict[str, list[str]]:
        """The prompts `judge` sends for this answer, by role (an empty answer: none)."""
        if not answer.strip():
            return {}
        out = {"path judge": [_checklist_text(q, answer, ids)[1] for _, ids in self._path_calls(q)]}
        if self.with_faithfulness:
            out["claims judge"] = [_faithfulness_text(answer, gt)[1]]
        if self.relevancy_n > 0:
            out["relevancy"] = [_relevancy_text(self.relevancy_n, answer)[1]]
        return out

    async def _checklist(
        self,
        q: EvalQuestion,
        answer: str,
        ids: list[tuple[str, EvalPath]],
        vote: int,
        result: JudgeResult,
    ) -> tuple[dict[str, PathJudgement], str]:
        """One checklist call: the verdicts it gave by path uid, and what went wrong with the
        paths it gave none on (after the client's one repair request)."""
        prompt, text = _checklist_text(q, answer, ids)
        params: dict[str, Any] = {}
        if self.votes > 1:  # votes are samples: distinct cache entries, a temperature above 0
            params["sample"] = vote
            params["seed"] = self.seed * 1000 + vote
            cfg = self.client.config
            if not cfg.is_reasoning and not (cfg.temperature or 0) > 0:
                params["temperature"] = VOTE_TEMPERATURE
        try:
            reply = await self.client.complete(
                [{"role": "user", "content": text}],
                schema=PathChecklistReply,
                schema_json=checklist_schema(ids),
                prompt_name=prompt.name,
                prompt_hash=prompt.hash,
                check=_missing_check({pid for pid, _ in ids}),
                **params,
            )
        except StructuredOutputError as exc:  # keep what the last reply did decide
            try:
                partial = parse_reply(exc.text, PathChecklistReply)
            except StructuredOutputError:
                return {}, f"{type(exc).__name__}: {exc}"[:300]
            assert isinstance(partial, PathChecklistReply)
            return map_path_verdicts(ids, partial, result), "no verdict in the reply"
        self._count(reply, result)
        return map_path_verdicts(ids, reply.parsed, result), ""

    async def _ask(
        self, prompt: Prompt, text: str, schema: type[BaseModel], result: JudgeResult
    ) -> LLMReply:
        """One structured call of a prompt; its tokens counted on the result."""
        reply = await self.client.complete(
            [{"role": "user", "content": text}],
            schema=schema,
            prompt_name=prompt.name,
            prompt_hash=prompt.hash,
        )
        self._count(reply, result)
        return reply

    async def _faithfulness(self, answer: str, gt: list[Fact], result: JudgeResult) -> None:
        prompt, text = _faithfulness_text(answer, gt)
        reply = await self._ask(prompt, text, FaithfulnessReply, result)
        map_claims(gt, reply.parsed, result)

    async def _relevancy(self, q: EvalQuestion, answer: str, result: JudgeResult) -> None:
        prompt, text = _relevancy_text(self.relevancy_n, answer)
        reply = await self._ask(prompt, text, RelevancyReply, result)
        generated = [s for s in reply.parsed.questions if s.strip()][: self.relevancy_n]
        result.relevancy_method = "llm-questions"
        if not generated:
            result.relevancy = 0.0
            return
        vecs = await asyncio.to_thread(embed, [q.text, *generated])
        result.relevancy = float(np.mean(vecs[1:] @ vecs[0]))
