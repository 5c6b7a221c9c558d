"""`kg perspectra eval`: ask a model every item of a task set, store replies, score strictly.

Replies are requested as plain chat completions (no schema repair) so that what the model wrote
is what gets parsed: an unparseable reply stays invalid. Answers are written chunk by chunk and
the run resumes: items already answered in the same Run are not asked again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation.perspectra.metrics import TaskScores
from evaluation.perspectra.run_store import (
    TaskRunSpec,
    answered,
    finish_run,
    start_run,
    store_answers,
)
from evaluation.perspectra.scoring import PROMPTS, render_item, task_prompt
from kg import leases
from kg.llm import LLMClient, LLMRequest
from kg.llm.config import PERSPECTRA_RESULT_FIELDS
from kg.store import Store, StoreError
from kg.task_items import TaskItem


@dataclass
class EvalOutcome:
    spec: TaskRunSpec
    scores: TaskScores
    asked: int = 0
    resumed: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)


def run_spec(client: LLMClient, task: str, task_set: str) -> TaskRunSpec:
    public = client.config.public_dict()
    return TaskRunSpec(
        task=task,
        task_set=task_set,
        model=client.config.model,
        strategy="llm",
        prompt_hash=task_prompt(task).hash,
        config={k: public.get(k) for k in PERSPECTRA_RESULT_FIELDS},
    )


def evaluate(
    store: Store,
    client: LLMClient,
    items: list[TaskItem],
    task: str,
    task_set: str,
    chunk: int = 50,
) -> EvalOutcome:
    spec = run_spec(client, task, task_set)
    with leases.hold(store, f"run:{spec.uid}", spec.uid, "perspectra") as lease:
        return _evaluate_leased(store, client, items, spec, task, chunk, lease)


def _evaluate_leased(
    store: Store,
    client: LLMClient,
    items: list[TaskItem],
    spec: TaskRunSpec,
    task: str,
    chunk: int,
    lease: leases.Lease,
) -> EvalOutcome:
    """One writer per run: the run's lease is held; a lost database stops the next chunk."""
    start_run(store, spec)
    done = answered(store, spec.uid)
    todo = [i for i in items if i.uid not in done]
    out = EvalOutcome(spec=spec, scores=TaskScores({}, {}), resumed=len(items) - len(todo))
    prompt = task_prompt(task)

    async def main() -> None:
        for start in range(0, len(todo), chunk):
            if not lease.healthy:
                raise StoreError(
                    f"PERSPECTRA run {spec.uid} stopped: {lease.problem}; "
                    "answers stored so far are kept, rerun the same command "
                    "to resume"
                )
            part = todo[start : start + chunk]
            requests = [
                LLMRequest(
                    messages=[{"role": "user", "content": render_item(i, prompt)}],
                    prompt_name=PROMPTS[task],
                    prompt_hash=prompt.hash,
                )
                for i in part
            ]
            replies = await client.complete_many(requests, return_exceptions=True)
            ok_items, texts, usage = [], [], []
            for item, reply in zip(part, replies, strict=True):
                if isinstance(reply, BaseException):  # call failed: left for a resume
                    out.failed += 1
                    out.errors.append(str(reply)[:300])
                    continue
                ok_items.append(item)
                texts.append(reply.text)
                usage.append(
                    {
                        "tokens_in": reply.usage.prompt_tokens,
                        "tokens_out": reply.usage.completion_tokens,
                        "cached": reply.cached,
                    }
                )
            out.asked += len(part)
            store_answers(store, spec.uid, ok_items, texts, usage)

    if todo:
        client.run_sync(main)
    out.scores = finish_run(store, spec, items)
    return out
