"""Run an evaluation (answer + judge every question) or re-judge a run's stored answers.

Questions go through a pool of async workers; finished questions are buffered and written in
batches, each batch one transaction (answer, verdicts, claims and the "judged" mark together),
so a run killed at any moment resumes with `--run-id` where it stopped: nothing duplicated
(uids are content hashes, writes MERGE) and nothing half-written.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from evaluation.judges import Judge, registry
from evaluation.judges.llm import JudgementFailed
from evaluation.judges.votes import SelfAgreement
from evaluation.models import AnswerResult, AnswerVariant, EvalQuestion, Fact, QuestionResult
from evaluation.profiles import decoders, formulations
from evaluation.profiles.perturbations import CONTEXT_PROMPTS, Perturbation, build_perturbations
from evaluation.responders.contexts import ContextOptions, build_contexts, ground_truth
from evaluation.responders.prompting import prompt_hashes
from evaluation.responders.responder import Responder, make_responder
from evaluation.runs import history as run_history
from evaluation.runs import store as runs
from evaluation.runs.cost_plan import CostPlan, check_budget, estimate
from evaluation.runs.questions import EvalInputError, load_questions
from evaluation.runs.record import EvalRunRecord
from evaluation.runs.spec import RunSpec
from evaluation.runs.store import StoredAnswer
from kg import __version__, leases
from kg.errors import Interrupted
from kg.ids import answer_uid
from kg.llm import (
    BudgetExceeded,
    LLMCallError,
    LLMClient,
    ServerUnreachable,
    StructuredOutputError,
    ledger_file,
)
from kg.llm.batch import BatchPending
from kg.llm.client import refused_access
from kg.llm.fleet import fleet_stats
from kg.processes import stop_signal_name
from kg.runs import RunStatus
from kg.store import Store, StoreError

Progress = Callable[[int, int], None]


class RunSummary(BaseModel):
    run_id: str
    status: RunStatus
    questions: int
    done_before: int
    completed: int
    failed: int
    skipped_invalid: int = 0
    errors: list[str] = Field(default_factory=list)
    calls: int = 0
    cached_calls: int = 0
    truncated: int = 0  # replies cut by max_tokens (finish_reason "length")
    judge_self_agreement: SelfAgreement | None = None  # a voting LLM judge, whole run
    elapsed_s: float = 0.0
    setup_s: float = 0.0  # reading questions, building contexts, opening the run
    endpoints: list[dict[str, Any]] = Field(default_factory=list)  # a fleet's, per endpoint
    batches: int = 0  # `--batch`: provider batches submitted this session
    batch_lines: int = 0


class WorkItem(BaseModel):
    """One answer to produce (eval run) or stored answer to judge (judge run)."""

    question: EvalQuestion
    context: list[Fact]  # what the responder is shown
    gt: list[Fact]  # faithfulness ground truth
    stored: StoredAnswer | None = None  # judge runs: the answer judged again
    variant: AnswerVariant  # sample index, context perturbation, formulation, decoder point


class Answered(BaseModel):
    """An answer waiting for a batching judge."""

    item: WorkItem
    answer: AnswerResult | None  # None: a stored answer
    answer_uid: str
    text: str


@dataclass(frozen=True)
class RunPlan:
    """Everything `execute` settles once before the run starts, that the pipeline reads:
    the judge and responder (and their clients), the selected questions with what each is
    shown and judged against, and the run's stored properties."""

    store: Store
    spec: RunSpec
    run_id: str
    props: dict[str, Any]
    judge: Judge
    responder: Responder | None
    r_client: LLMClient | None
    j_client: LLMClient | None
    questions: list[EvalQuestion]
    problems: list[str]  # questions skipped as invalid (counted in the summary)
    contexts: dict[str, list[Fact]]
    perturbations: dict[str, list[Perturbation]]
    grid_subset: set[str]  # questions the decoder grid runs on
    gts: dict[str, list[Fact]]
    stored: list[StoredAnswer]  # judge runs: the source run's answers
    started: float  # perf_counter at the start of `execute`

    @property
    def clients(self) -> list[LLMClient]:
        return [c for c in (self.r_client, self.j_client) if c is not None]

    @property
    def resume_command(self) -> str:
        return f"kg eval {'run' if self.spec.kind == 'eval' else 'judge'} --run-id {self.run_id}"


def make_judge(spec: RunSpec, client: LLMClient | None) -> Judge:
    """The spec's judge, made by the judge registry."""
    return registry.make(spec.judge, spec.judge_settings(), client)


class _Pipeline:
    def __init__(
        self, plan: RunPlan, lease: leases.Lease | None, progress: Progress | None, total: int
    ) -> None:
        self.plan, self.lease, self.progress, self.total = plan, lease, progress, total
        self.store, self.run_id, self.judge, self.responder = (
            plan.store,
            plan.run_id,
            plan.judge,
            plan.responder,
        )
        self.clients, self.spec = plan.clients, plan.spec
        self.buffer: list[QuestionResult] = []
        self.errors: list[str] = []
        self.completed = 0
        self.stopped: str | None = None
        self._flush_lock = asyncio.Lock()
        self._flushing: asyncio.Task | None = None
        self._ledger_mark = [0 for _ in self.clients]
        self.db_error: str | None = None  # set when a batch could not be written
        self.requests_at_stop: int | None = None  # HTTP requests sent when Neo4j was lost
        # offline judges that judge many answers at once: answers wait here for it
        self.answered: list[Answered] = []
        self._judge_lock = asyncio.Lock()
        # batch mode: items that failed (not tried again by a later round)
        self.failed_keys: set[tuple[str, str, str]] = set()
        self.batches_sent = (0, 0)  # batches and lines submitted this session

    def next_round(self) -> None:
        """Batch mode: the next round runs on a new event loop (its locks are made anew)."""
        self._flush_lock, self._judge_lock = asyncio.Lock(), asyncio.Lock()
        self._flushing = None

    def _usage_delta(self, results: list[QuestionResult]) -> dict[str, float | int]:
        calls = cached = 0
        cost = 0.0
        for i, c in enumerate(self.clients):
            recs = c.ledger.records[self._ledger_mark[i] :]
            self._ledger_mark[i] += len(recs)
            calls += sum(1 for r in recs if not r.cached)
            cached += sum(1 for r in recs if r.cached)
            cost += sum(r.cost for r in recs)
        t_in = sum(
            (r.answer.prompt_tokens if r.answer else 0) + r.judged.prompt_tokens for r in results
        )
        t_out = sum(
            (r.answer.tokens if r.answer else 0) + r.judged.completion_tokens for r in results
        )
        return {
            "tokens_in": t_in,
            "tokens_out": t_out,
            "calls": calls,
            "cached_calls": cached,
            "cost": cost,
        }

    async def flush(self) -> None:
        async with self._flush_lock:
            batch, self.buffer = self.buffer, []
            if not batch:
                return
            if self.db_error is not None:
                return  # the database is gone: these items are redone on resume
            usage = self._usage_delta(batch)
            try:
                await asyncio.to_thread(
                    runs.write_batch, self.store, self.run_id, self.judge.name, batch, usage
                )
            except Exception as exc:  # noqa: BLE001 - any failure to write stops the run
                self.db_error = f"cannot write to Neo4j ({type(exc).__name__}: {exc})"[:500]
                self.stopped = self.db_error
                self.note_stop()
                return
            self.completed += len(batch)
            if self.progress:
                self.progress(self.completed, self.total)

    def note_stop(self) -> None:
        """Count the requests sent when the database was found lost (the message says how
        many went out after: those already in flight)."""
        if self.requests_at_stop is None:
            self.requests_at_stop = sum(c.ledger.http_requests for c in self.clients)

    def unrecorded_usage(self) -> dict[str, float | int]:
        """Calls made since the last batch (failed items' calls are in no batch)."""
        return self._usage_delta([])

    async def process(self, item: WorkItem) -> None:
        q = item.question
        if item.stored is not None:
            answer: AnswerResult | None = None
            a_uid, text = item.stored.uid, item.stored.text
        else:
            assert self.responder is not None
            answer = await self.responder.answer(q, item.context, item.variant)
            a_uid, text = answer_uid(self.run_id, q.uid, item.variant.key()), answer.text
        if self.judge.batches:
            self.answered.append(Answered(item=item, answer=answer, answer_uid=a_uid, text=text))
            if len(self.answered) >= self.spec.batch_size:
                await self.judge_answered()
            return
        judged = await self.judge.judge(q, text, item.gt)
        if judged.failed_paths:  # no verdict is not "absent": the answer is not scored
            raise JudgementFailed("; ".join(judged.failures))
        self.buffer.append(
            QuestionResult(question=q, answer_uid=a_uid, answer=answer, judged=judged)
        )
        if len(self.buffer) >= self.spec.batch_size:
            self.flush_soon()

    async def judge_answered(self) -> None:
        """A batching judge (`Judge.batches`) judges the answers gathered so far at once (one
        encoder call for all their sentences, not one per answer); called when `batch_size`
        answers wait, by the 2-second ticker (a slow responder's answers are stored soon) and
        at the end."""
        if not self.judge.batches:
            return
        async with self._judge_lock:
            done, self.answered = self.answered, []
            if not done:
                return
            judged = await asyncio.to_thread(
                self.judge.judge_batch, [(a.item.question, a.text, a.item.gt) for a in done]
            )
            self.buffer += [
                QuestionResult(
                    question=a.item.question, answer_uid=a.answer_uid, answer=a.answer, judged=j
                )
                for a, j in zip(done, judged, strict=True)
            ]
        self.flush_soon()

    def flush_soon(self) -> None:
        """Write the buffer in the background: workers keep asking while a batch is written."""
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self.flush())

    async def run(self, items: list[WorkItem], workers: int) -> None:
        queue: asyncio.Queue = asyncio.Queue()
        for item in items:
            queue.put_nowait(item)

        async def worker() -> None:
            while not queue.empty() and self.stopped is None:
                if self.lease is not None and not self.lease.healthy:
                    # the database is part of the circuit: no more model calls without it
                    self.stopped = self.lease.problem
                    if self.lease.problem and "Neo4j" in self.lease.problem:
                        self.db_error = self.lease.problem
                        self.note_stop()
                    break
                item = queue.get_nowait()
                q = item.question
                try:
                    await self.process(item)
                except BatchPending:  # batch mode: its request goes out in this round's batch
                    pass
                except BudgetExceeded as exc:
                    self.stopped = str(exc)
                except ServerUnreachable as exc:  # every other question would fail too
                    self.stopped = (
                        f"stopped: the model server stopped answering ({exc})"
                        f"; answers so far are stored: start the server again "
                        f"and rerun with --run-id {self.run_id} to resume"
                    )[:1500]
                except (StructuredOutputError, LLMCallError) as exc:
                    self.errors.append(f"{q.ref}: {type(exc).__name__}: {exc}"[:1000])
                    self.failed_keys.add(item_key(item))
                    if refused_access(exc.__cause__):  # every other call would fail too
                        self.stopped = f"{type(exc.__cause__).__name__}: {exc}"[:1000]

        finished = asyncio.Event()

        async def ticker() -> None:  # flush slow runs at least every 2 s
            while not finished.is_set():
                try:
                    await asyncio.wait_for(finished.wait(), timeout=2.0)
                except TimeoutError:
                    await self.judge_answered()
                    self.flush_soon()

        tick = asyncio.create_task(ticker())
        try:
            await asyncio.gather(*(worker() for _ in range(max(1, workers))))
        finally:
            try:
                # never cancel a flush midway: its batch would be written but not counted
                finished.set()
                await tick
                if self.db_error is None:  # answers gathered for a batch judge are judged
                    await self.judge_answered()
                if self._flushing is not None:
                    await self._flushing
                await self.flush()
            finally:
                # HTTP pools closed whatever the flush did (a SIGTERM mid-run left an aiohttp
                # session unclosed, and its warning after the one-line message)
                for c in self.clients:
                    await asyncio.shield(c.aclose())


def execute(
    store: Store,
    spec: RunSpec,
    progress: Progress | None = None,
    announce: Callable[[CostPlan], None] | None = None,
    refuse_over_budget: bool = True,
) -> RunSummary:
    """Run (or resume) an evaluation run, or a judge run over a source run's answers. The
    cost plan of what is left is made first (`announce`d) and, unless told otherwise, refused
    when its estimate exceeds `--max-cost`; the ledger still stops a run that spends more
    than the estimate said."""
    plan = plan_run(store, spec)
    cost = cost_plan(plan)
    if announce is not None:
        announce(cost)
    if refuse_over_budget:
        check_budget(cost, spec)
    with leases.hold(store, f"run:{plan.run_id}", plan.run_id, spec.kind) as lease:
        hold_questions(store, lease, plan.questions, spec)
        return _execute_leased(plan, lease, progress)


def _clients(spec: RunSpec) -> tuple[LLMClient | None, LLMClient | None]:
    """The responder's and the judge's LLM clients (None where the role is offline)."""
    shared = (f"run-limit-{id(spec)}", spec.shared_concurrency) if spec.shared_concurrency else None
    r_client = (
        LLMClient(spec.responder_llm, shared_limit=shared)
        if (spec.kind == "eval" and spec.responder == "llm" and spec.responder_llm)
        else None
    )
    j_client = (
        LLMClient(spec.judge_llm, shared_limit=shared)
        if registry.entry(spec.judge).needs_llm and spec.judge_llm
        else None
    )
    return r_client, j_client


def _prompt_hashes(spec: RunSpec, judge: Judge, responder: Responder | None) -> dict[str, str]:
    """The hash of every prompt the run sends (part of its identity)."""
    names = (responder.prompt_names() if responder else []) + judge.prompt_names()
    if spec.contexts:
        names += CONTEXT_PROMPTS
    names += [
        formulations.TEMPLATES[n] for n in spec.formulations or [] if n in formulations.TEMPLATES
    ]
    return prompt_hashes(names)


def _source_answers(store: Store, spec: RunSpec) -> tuple[EvalRunRecord | None, list[StoredAnswer]]:
    """A judge run's source run and the answers it stored (nothing for an eval run)."""
    if spec.kind != "judge":
        return None, []
    if not spec.source_run:
        raise EvalInputError("a judge run needs the run whose answers it judges (--run)")
    source = runs.get_run(store, spec.source_run)
    if source.kind != "eval":
        raise EvalInputError(
            f"run {spec.source_run!r} is a {source.kind} run; "
            "judge the responder run that holds the answers"
        )
    stored = runs.stored_answers(store, spec.source_run)
    if not stored:
        raise EvalInputError(f"run {spec.source_run!r} has no stored answers to judge")
    return source, stored


def _check_identity(store: Store, run_id: str, identity: dict[str, Any]) -> None:
    """An existing run id resumes that run only when its configuration is this one."""
    existing = runs.get_run(store, run_id, required=False)
    if existing is not None and existing.identity != identity:
        old = existing.identity or {}
        diff = sorted(k for k in identity if old.get(k) != identity[k])
        raise EvalInputError(
            f"run {run_id!r} already exists with another configuration "
            f"(differs in: {', '.join(diff)}); choose another --run-id"
        )


def plan_run(store: Store, spec: RunSpec, *, writes: bool = True) -> RunPlan:
    """Everything the run needs, read and checked before its lease is taken. `writes=False`
    (a cost plan): nothing is written, not even the RAG-dense facts' vectors."""
    started = time.perf_counter()
    r_client, j_client = _clients(spec)
    judge = make_judge(spec, j_client)
    if judge.learns:  # e.g. the edge-evidence judge's relation reader: the graph's reasons
        judge.learn(load_questions(store, skip_invalid=True)[0])
    responder = (
        make_responder(spec.responder, r_client, spec.strategy, spec.samples, spec.seed)
        if spec.kind == "eval"
        else None
    )
    hashes = _prompt_hashes(spec, judge, responder)
    run_id = spec.run_id or spec.default_run_id(hashes)
    identity = spec.identity(hashes)
    source, stored = _source_answers(store, spec)
    # A judge run selects like an eval run, within the source run's answers.
    questions, problems = load_questions(
        store,
        uids=sorted({a.question for a in stored}) if spec.kind == "judge" else None,
        domains=spec.domains,
        hops=spec.hops,
        limit=spec.limit,
        skip_invalid=spec.skip_invalid,
    )
    if not questions:
        raise EvalInputError(
            f"no answer of run {spec.source_run!r} matches the selection (--domain/--hop/--limit)"
            if spec.kind == "judge"
            else "no questions match the selection (import questions first: "
            "`kg import perspectivebench FILE`)"
        )
    _check_identity(store, run_id, identity)

    opts = ContextOptions(
        spec.setting,
        noise=spec.noise,
        top_k=spec.top_k,
        seed=spec.seed,
        store_embeddings=writes,
    )
    eval_run = spec.kind == "eval"
    models = [m for m in (responder.name if responder else None, judge.name) if m]
    props = {
        "kind": spec.kind,
        "models": models,
        "setting": spec.setting.value,
        "strategy": spec.strategy.value,
        "judge": judge.name,
        "gt": spec.gt.value,
        "roles": {"responder": responder.name if responder else None, "judge": judge.name},
        "prompt_hashes": hashes,
        "identity": identity,
        "version": __version__,
        "source_run": spec.source_run,
        "config": {
            **spec.model_dump(mode="json", exclude={"responder_llm", "judge_llm"}),
            "responder_llm": r_client.config.public_dict() if r_client else None,
            "judge_llm": j_client.config.public_dict() if j_client else None,
            "context": opts.as_dict(),
        },
    }
    if source is not None:  # a judge run: the answers' setting/strategy are the source run's
        props["setting"], props["strategy"] = source.setting, source.strategy
    return RunPlan(
        store=store,
        spec=spec,
        run_id=run_id,
        props=props,
        judge=judge,
        responder=responder,
        r_client=r_client,
        j_client=j_client,
        questions=questions,
        problems=problems,
        contexts=build_contexts(store, questions, opts) if eval_run else {},
        perturbations=(
            build_perturbations(store, questions, spec.contexts, spec.seed) if eval_run else {}
        ),
        grid_subset=(
            decoders.subset(questions, spec.subset_percent, spec.seed) if spec.decoders else set()
        ),
        gts=ground_truth(store, questions, spec.gt),
        stored=stored,
        started=started,
    )


def cost_plan(plan: RunPlan, latency_s: float | None = None) -> CostPlan:
    """What the planned run has left to ask, and what it costs (nothing is called)."""
    done = runs.done_answers(plan.store, plan.run_id)
    return estimate(plan, work_items(plan, done), len(done), latency_s)


def hold_questions(
    store: Store, lease: leases.Lease, questions: list[EvalQuestion], spec: RunSpec
) -> None:
    """A run holds what it reads: the domains of its questions are guarded by its lease (a
    build, `--replace` or delete of one is refused while the run lives; a run is refused while
    one is being built). The questions were read before the guard was taken, so they are read
    again: a domain changed in between ends the run here, before it starts."""
    lease.guard(f"build:{d}" for d in {q.domain for q in questions})
    again, _ = load_questions(
        store,
        uids=[q.uid for q in questions],
        domains=spec.domains,
        hops=spec.hops,
        limit=None,
        skip_invalid=True,
    )
    before = {(q.uid, q.text) for q in questions}
    if not before <= {(q.uid, q.text) for q in again}:
        raise EvalInputError(
            "the selected questions changed while the run was starting (a domain was "
            "deleted, replaced or built meanwhile); run the command again"
        )


def question_variants(
    q: EvalQuestion,
    spec: RunSpec,
    perturbations: dict[str, list[Perturbation]],
    grid_subset: set[str],
) -> list[AnswerVariant]:
    """What a question is asked as (each then `--samples` times): the original, each C3
    context perturbation, each PROOF formulation and, on the seeded subset, each decoder grid
    point."""
    out = [AnswerVariant()]
    out += [AnswerVariant(context=c.id, preamble=c.text) for c in perturbations.get(q.uid, [])]
    out += [
        AnswerVariant(formulation=f.name, question_text=f.text, hint_path=f.hint_path)
        for f in formulations.formulate(q, spec.formulations or [], spec.seed)
    ]
    if q.uid in grid_subset:
        out += [
            AnswerVariant(decoder_point=f"d{i}", decoder=dict(point))
            for i, point in enumerate(spec.decoders or [], 1)
        ]
    return out


def work_items(plan: RunPlan, done: set[str]) -> list[WorkItem]:
    """What is left to do: every stored answer not yet judged (judge run), or every question
    variant and sample not yet answered and judged (eval run)."""
    items: list[WorkItem] = []
    if plan.stored:  # judge run: every stored answer (each sample of a sampled run)
        by_uid = {q.uid: q for q in plan.questions}
        for a in plan.stored:
            q = by_uid.get(a.question)
            if q is not None and a.uid not in done:
                items.append(
                    WorkItem(
                        question=q, context=[], gt=plan.gts[q.uid], stored=a, variant=a.variant
                    )
                )
        return items
    spec = plan.spec
    for q in plan.questions:
        for base in question_variants(q, spec, plan.perturbations, plan.grid_subset):
            for sample in range(spec.samples):
                variant = base.model_copy(update={"sample": sample})
                if answer_uid(plan.run_id, q.uid, variant.key()) not in done:
                    items.append(
                        WorkItem(
                            question=q,
                            context=plan.contexts.get(q.uid, []),
                            gt=plan.gts[q.uid],
                            variant=variant,
                        )
                    )
    return items


def item_key(item: WorkItem) -> tuple[str, str, str]:
    """Which answer an item makes or judges (batch rounds skip the items that failed)."""
    variant = json.dumps(item.variant.key(), sort_keys=True, default=str)
    return (item.question.uid, variant, item.stored.uid if item.stored else "")


def _batch_rounds(plan: RunPlan, pipe: _Pipeline, items: list[WorkItem], workers: int) -> None:
    """Batch mode (`--batch`, docs/batch.md): rounds of the same pipeline. A round answers
    what finished batches hold and collects every other request as a batch line (its item
    waits); the lines go out as batches, polled to the end, and the next round goes on from
    their replies (answers, then their judging) until a round collects nothing. A resumed run
    first waits for the batches the graph says are in flight: no line is sent twice."""
    import openai

    from kg.llm.batch.driver import BatchDriver

    driver = BatchDriver(plan.store, plan.run_id, [c for c in plan.clients if c.config.batch])
    try:
        driver.resume()
        while True:
            asyncio.run(pipe.run(items, workers))
            if pipe.stopped is not None or pipe.db_error is not None or not driver.collected():
                break
            driver.submit()
            driver.settle()
            pipe.next_round()
            done = runs.done_answers(plan.store, plan.run_id)
            items = [i for i in work_items(plan, done) if item_key(i) not in pipe.failed_keys]
        if pipe.stopped is None:  # every reply was used: a rerun (of failed items) starts afresh
            driver.close_scope()
    except (openai.APIError, LLMCallError) as exc:  # the batch API failed: nothing is lost
        pipe.stopped = (
            f"stopped: the batch API failed ({type(exc).__name__}: {exc}); the batches sent "
            f"are kept in the graph: rerun with --run-id {plan.run_id} to resume (they are "
            "polled, never sent again)"
        )[:1500]
    finally:
        pipe.errors += driver.problems
        pipe.batches_sent = (driver.submitted, driver.lines_sent)
        driver.close()


def _execute_leased(plan: RunPlan, lease: leases.Lease, progress: Progress | None) -> RunSummary:
    """The run itself, while this process holds the run's lease (one writer per run)."""
    store, spec, run_id = plan.store, plan.spec, plan.run_id
    runs.start_run(store, run_id, plan.props, spec.source_run)
    done = runs.done_answers(store, run_id)
    items = work_items(plan, done)
    clients = plan.clients
    workers = spec.workers or (
        (plan.r_client.config.in_flight if plan.r_client else 4)
        + (plan.j_client.config.in_flight if plan.j_client else 0)
    )
    pipe = _Pipeline(plan, lease, progress, len(items))
    setup_s = time.perf_counter() - plan.started
    try:
        if any(c.config.batch for c in clients):
            _batch_rounds(plan, pipe, items, workers)
        else:
            asyncio.run(pipe.run(items, workers))
        if pipe.db_error is not None:
            lease.problem = lease.problem or pipe.db_error  # do not wait on the dead server
            raise _database_lost(pipe)
        failed = len(items) - pipe.completed
        status = (
            RunStatus.interrupted
            if pipe.stopped
            else RunStatus.partial
            if failed
            else RunStatus.done
        )
        errors = ([pipe.stopped] if pipe.stopped else []) + pipe.errors
        if gone := _questions_gone(store, run_id, plan.questions):
            status, errors = RunStatus.failed, [gone, *errors]
        agreement = _close(pipe, status, errors)
    except KeyboardInterrupt:  # SIGINT, or SIGTERM (kg.processes.stop_signals_interrupt)
        why = f"interrupted by {stop_signal_name()}"
        _close(pipe, RunStatus.interrupted, [why, *pipe.errors])
        raise Interrupted(
            f"run {run_id} {why}: {pipe.completed} question(s) stored this session, "
            f"{len(items) - pipe.completed} left; resume with: {plan.resume_command} "
            "(same options)"
        ) from None
    except DatabaseLost:
        raise
    except Exception as exc:  # noqa: BLE001 - no error may leave the run `running`
        if pipe.db_error is None:
            why = f"{type(exc).__name__}: {exc}"[:1000]
            _close(pipe, RunStatus.failed, [why, *pipe.errors])
        raise
    return RunSummary(
        run_id=run_id,
        status=status,
        questions=len(plan.questions),
        done_before=len(done),
        completed=pipe.completed,
        failed=failed,
        skipped_invalid=len(plan.problems),
        errors=errors + plan.problems,
        calls=sum(c.ledger.calls for c in clients),
        cached_calls=sum(c.ledger.cached for c in clients),
        truncated=sum(c.ledger.truncated for c in clients),
        judge_self_agreement=agreement,
        elapsed_s=time.perf_counter() - plan.started,
        setup_s=setup_s,
        endpoints=fleet_stats(clients),
        batches=pipe.batches_sent[0],
        batch_lines=pipe.batches_sent[1],
    )


def _close(pipe: _Pipeline, status: RunStatus, errors: list[str]) -> SelfAgreement | None:
    """Close this session of the run: status, reasons and one history entry (returns a voting
    judge's self-agreement, also stored on the run)."""
    store, run_id, spec = pipe.store, pipe.run_id, pipe.spec
    failed = pipe.total - pipe.completed
    usage = pipe.unrecorded_usage()
    if usage["calls"] or usage["cached_calls"]:  # the Run counts every call, failed ones too
        store.query("eval/run_add_usage", uid=run_id, **usage)
    agreement = (  # a voting LLM judge: how often its votes agree, over all stored verdicts
        runs.judge_self_agreement(store, run_id, spec.judge_votes)
        if spec.judge == registry.LLM_JUDGE and spec.judge_votes > 1
        else None
    )
    runs.finish_run(store, run_id, status, errors, failed, agreement, fleet_stats(pipe.clients))
    run_history.record_session(
        store,
        run_id,
        run_history.Session(
            at=runs.now(), status=status, completed=pipe.completed, failed=failed, reasons=errors
        ),
    )
    return agreement


def _questions_gone(store: Store, run_id: str, questions: list[EvalQuestion]) -> str | None:
    """The last check before `done`: every selected question still exists and every answer of
    the run still hangs on a question (a writer that ignored the run's lease, e.g. an older
    version, must not leave a report that says done over questions that are gone)."""
    row = store.query("eval/run_questions_gone", uid=run_id, uids=[q.uid for q in questions])[0]
    if not row["missing"] and not row["orphans"]:
        return None
    return (
        f"{row['missing']} of the run's {len(questions)} question(s) were deleted or replaced "
        f"while it ran ({row['orphans']} answer(s) hang on no question); its scores would "
        "not describe the questions in the graph"
    )


class DatabaseLost(StoreError):
    """The run stopped because Neo4j could not be written; it can be resumed."""


def _database_lost(pipe: _Pipeline) -> DatabaseLost:
    """Every request sent goes to a local ledger file (the Run cannot be written), and one
    message says what failed, that nothing written is lost, and how to resume."""
    run_id, clients = pipe.run_id, pipe.clients
    path = ledger_file.write(run_id, clients)
    sent = sum(c.ledger.http_requests for c in clients)
    after = sent - (pipe.requests_at_stop if pipe.requests_at_stop is not None else sent)
    return DatabaseLost(
        f"run {run_id} stopped: {pipe.db_error or pipe.stopped}. No new question was started "
        f"after that ({after} HTTP request(s) already in flight or retrying went out after "
        f"it); {pipe.completed} question(s) were stored this session, the rest are "
        f"redone on resume. {sent} HTTP request(s) were sent in all (ledger: {path}). Start Neo4j "
        f"(`kg db up`) and resume with: {pipe.plan.resume_command} (with the same options)"
    )
