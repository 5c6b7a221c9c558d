"""What a run will ask before it asks anything: calls, tokens, cost and wall time per role.

The plan walks the same work items the runner makes (`work_items`, so samples, C3 contexts,
PROOF formulations and decoder points count exactly as they are asked) and renders the prompts
each item sends with the responder's and the judge's own prompt builders (`planned_request`,
`planned_requests`). Prompt tokens are counted with the regex tokenizer the product uses when a
server reports no usage (kg/llm/tokens.py): an estimate, named in the plan.
Completion tokens are, for an LLM responder, the mean its earlier runs' answers report (server
usage), else `--max-tokens` (a ceiling), else an assumed length; the judges' are `--max-tokens` or
an assumed length per role. The judge of an LLM responder's answer is sized with an answer of the
responder's estimated length; offline responders' answers and a judge run's stored answers are
judged as they are.
Repair requests (a reply that fails its schema) are not foreseen: a real run may send a few more.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from evaluation.models import AnswerVariant
from kg.llm.plan import DEFAULT_LATENCY_S, RoleEstimate
from kg.llm.plan import CostPlan as SharedCostPlan
from kg.llm.tokens import count_tokens

if TYPE_CHECKING:  # the runner makes the plan and checks it: no import cycle
    from evaluation.runs.runner import RunPlan, WorkItem
    from evaluation.runs.spec import RunSpec
    from kg.llm import LLMClient

RESPONDER_ROLES = ("responder", "samples", "contexts", "formulations", "decoders")
JUDGE_ROLES = ("path judge", "claims judge", "relevancy")
# Reply lengths assumed without --max-tokens (tokens per call).
ASSUMED_COMPLETION = {
    "responder": 250,
    "path judge": 120,
    "claims judge": 150,
    "relevancy": 60,
}


class CostPlan(SharedCostPlan):
    """`kg eval plan`'s: the run's work items left (answers to produce or judge)."""

    run_id: str
    questions: int
    answers: int  # work items left (answers to produce or judge)
    done_before: int

    def scope(self) -> str:
        return f"{self.answers} answer(s) of {self.questions} question(s)"


def variant_role(v: AnswerVariant) -> str:
    """Which responder role asks this variant (the plain answer: `responder`)."""
    if v.sample > 0:
        return "samples"
    if v.context is not None:
        return "contexts"
    if v.formulation is not None:
        return "formulations"
    if v.decoder_point is not None:
        return "decoders"
    return "responder"


def _completion(client: LLMClient | None, role: str) -> tuple[int, str]:
    """Tokens per reply of a role and where the figure comes from."""
    if client is not None and client.config.max_tokens:
        return client.config.max_tokens, "--max-tokens"
    return ASSUMED_COMPLETION["responder" if role in RESPONDER_ROLES else role], "assumed"


def _answer_length(plan: RunPlan) -> tuple[int, str]:
    """An LLM responder's reply length: the mean its earlier stored answers report (server
    usage, capped by --max-tokens), else --max-tokens, else the assumed length."""
    tokens, source = _completion(plan.r_client, "responder")
    if plan.responder is None or plan.responder.offline:
        return tokens, source
    row = plan.store.query("eval/observed_answer_tokens", responder=plan.responder.name)[0]
    if not row["answers"]:
        return tokens, source
    mean = round(row["mean_tokens"])
    cap = plan.r_client.config.max_tokens if plan.r_client else None
    return (min(mean, cap) if cap else mean), f"observed ({row['answers']} earlier answers)"


def _answer_texts(plan: RunPlan, items: list[WorkItem], answer_tokens: int) -> list[str]:
    """What the judge would judge: stored answers, offline responders' answers as made, and
    an LLM responder's as a placeholder of its estimated length."""
    if plan.responder is None or not plan.responder.offline:
        placeholder = " ".join(["word"] * answer_tokens)
        return [it.stored.text if it.stored else placeholder for it in items]
    responder = plan.responder

    async def made() -> list[str]:
        return [(await responder.answer(it.question, it.context, it.variant)).text for it in items]

    return asyncio.run(made())


def check_budget(cost: CostPlan, spec: RunSpec) -> None:
    """Refuse a run whose estimated cost exceeds the smallest --max-cost of its models."""
    limits = [c.max_cost for c in (spec.responder_llm, spec.judge_llm) if c and c.max_cost]
    cost.refuse_over(
        min(limits) if limits else None,
        f"run {cost.run_id}",
        f" for {cost.answers} answer(s)",
        "select fewer questions (`kg eval plan` shows the cost per role)",
    )


def estimate(
    plan: RunPlan, items: list[WorkItem], done_before: int = 0, latency_s: float | None = None
) -> CostPlan:
    """The cost plan of these work items of the planned run (nothing is called)."""
    roles: dict[str, RoleEstimate] = {}
    r_model = plan.r_client.config.model if plan.r_client else ""
    j_model = plan.j_client.config.model if plan.j_client else ""

    def add(role: str, model: str, prompt: str, completion: tuple[int, str]) -> None:
        r = roles.setdefault(
            role, RoleEstimate(role=role, model=model, completion_source=completion[1])
        )
        r.calls += 1
        r.prompt_tokens += count_tokens(prompt)
        r.completion_tokens += completion[0]

    answer = _answer_length(plan)
    if plan.responder is not None:
        for it in items:
            text = plan.responder.planned_request(it.question, it.context, it.variant)
            if text is not None:
                add(variant_role(it.variant), r_model, text, answer)
    judged = [] if plan.judge.offline else items  # an offline judge asks no model
    for it, text in zip(judged, _answer_texts(plan, judged, answer[0]), strict=True):
        for role, prompts in plan.judge.planned_requests(it.question, text, it.gt).items():
            for p in prompts:
                add(role, j_model, p, _completion(plan.j_client, role))
    ordered = [roles[r] for r in (*RESPONDER_ROLES, *JUDGE_ROLES) if r in roles]
    latency = latency_s if latency_s is not None else DEFAULT_LATENCY_S
    cost = CostPlan(
        run_id=plan.run_id,
        questions=len(plan.questions),
        answers=len(items),
        done_before=done_before,
        roles=ordered,
        batch=any(c.config.batch for c in plan.clients),
        wall_s=_wall_s(plan, ordered, len(items), latency),
        latency_s=latency,
        latency_source="--latency" if latency_s is not None else "assumed",
    )
    prices = {}
    for r in ordered:
        client = plan.r_client if r.role in RESPONDER_ROLES else plan.j_client
        prices[r.model] = client.config.price_for() if client else None
    cost.price(prices)
    return cost


def _wall_s(plan: RunPlan, roles: list[RoleEstimate], items: int, latency: float) -> float:
    """The longest of: each role's calls through its requests in flight, and the items
    through the workers (an item's responder call, then its judge calls at once)."""
    r_calls = sum(r.calls for r in roles if r.role in RESPONDER_ROLES)
    j_calls = sum(r.calls for r in roles if r.role in JUDGE_ROLES)
    r_in = plan.r_client.config.in_flight if plan.r_client else 1
    j_in = plan.j_client.config.in_flight if plan.j_client else 1
    workers = plan.spec.workers or (r_in if plan.r_client else 4) + (j_in if plan.j_client else 0)
    depth = (1 if r_calls else 0) + (1 if j_calls else 0)
    bounds = [items * depth * latency / max(1, workers)]
    if plan.spec.shared_concurrency:
        bounds.append((r_calls + j_calls) * latency / plan.spec.shared_concurrency)
    bounds += [r_calls * latency / r_in, j_calls * latency / j_in]
    return max(bounds)
