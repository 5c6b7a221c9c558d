"""Runs in the graph: create/resume, write a batch of finished questions atomically, list."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, overload

import neo4j
from pydantic import BaseModel

from evaluation.judges.votes import SelfAgreement, self_agreement
from evaluation.models import AnswerResult, AnswerVariant, QuestionResult
from evaluation.runs.questions import EvalInputError
from evaluation.runs.record import EvalRunRecord
from kg import runs as kg_runs
from kg.ids import answer_uid, claim_uid, verdict_uid
from kg.runs import RunRecord, RunStatus, now
from kg.store import Store

if TYPE_CHECKING:
    import neo4j

EVAL_KINDS = ("eval", "judge")


@overload
def get_run(store: Store, uid: str, *, required: Literal[True] = True) -> EvalRunRecord: ...
@overload
def get_run(store: Store, uid: str, *, required: bool) -> EvalRunRecord | None: ...
def get_run(store: Store, uid: str, *, required: bool = True) -> EvalRunRecord | None:
    """An evaluation run's record (a `running` run whose process is gone reads
    `interrupted`); an unknown id is an EvalInputError naming known runs, unless not
    `required`."""
    run = kg_runs.read_run(store, uid)
    if run is None and required:
        known = [r["run"]["uid"] for r in _eval_runs(store)][:10]
        hint = f" (known runs: {', '.join(known)})" if known else " (the graph has no runs)"
        raise EvalInputError(f"unknown run id {uid!r}{hint}")
    if run is not None and run.get("kind") not in EVAL_KINDS:
        raise EvalInputError(f"run {uid!r} is a {run.get('kind')} run, not an evaluation run")
    if run is None:
        return None
    return EvalRunRecord.model_validate(RunRecord.from_node(run).model_dump(mode="json"))


def _eval_runs(store: Store) -> list[dict[str, Any]]:
    # Build and PERSPECTRA runs share the Run label; they have their own listings.
    return store.query("eval/runs_list", kinds=list(EVAL_KINDS))


def list_runs(store: Store) -> list[EvalRunRecord]:
    """Every evaluation run, newest first, as typed records (older statuses in today's words;
    a `running` run whose process is gone reads `interrupted`)."""
    from kg.leases import effective_status

    rows = [
        RunRecord.from_node(r["run"]).model_dump(mode="json") | {"judged": r["judged"]}
        for r in _eval_runs(store)
    ]
    return [EvalRunRecord.model_validate(r) for r in effective_status(store, rows)]


def start_run(store: Store, uid: str, props: dict[str, Any], source: str | None) -> dict:
    """Create or resume an evaluation run through the one run store (kind from `props`)."""
    fields = {k: v for k, v in props.items() if k != "kind"}
    return kg_runs.start_run(store, uid, props.get("kind", "eval"), fields, source=source)


def finish_run(
    store: Store,
    uid: str,
    status: RunStatus,
    errors: list[str],
    failed: int,
    self_agreement: SelfAgreement | None = None,
    endpoints: list[dict[str, Any]] | None = None,
) -> dict:
    """`endpoints`: the session's per-endpoint figures of a fleet (kg.llm.fleet.fleet_stats)."""
    props: dict[str, Any] = {"errors": errors[:50], "failed": failed}
    if endpoints:
        props["endpoints"] = endpoints
    if self_agreement is not None:
        props["judge_self_agreement"] = self_agreement.model_dump_json()
    return kg_runs.finish_run(store, uid, status, props)


def judge_self_agreement(store: Store, uid: str, votes: int) -> SelfAgreement:
    """A voting judge's agreement with itself over every verdict the run stored (all
    sessions of a resumed run), with its ties and failed votes."""
    row = store.query("eval/run_judge_votes", uid=uid)[0]
    return self_agreement(
        [v for answer in row["per_answer"] for v in answer],
        votes,
        ties=row["ties"] or 0,
        failed_votes=row["failed_votes"] or 0,
    )


def done_answers(store: Store, uid: str) -> set[str]:
    """Uids of the answers a run has finished (answered and judged): skipped on resume."""
    return {r["answer"] for r in store.query("eval/run_done", uid=uid)}


class StoredAnswer(BaseModel):
    """An answer a responder run stored, as a judge run reads it to judge it again."""

    uid: str
    question: str  # the question's uid
    text: str
    variant: AnswerVariant


def stored_answers(store: Store, uid: str) -> list[StoredAnswer]:
    """Every answer a responder run stored (one per question, or one per sample)."""
    return [
        StoredAnswer(
            uid=r["answer"],
            question=r["question"],
            text=r["text"] or "",
            variant=variant_from_props(r),
        )
        for r in store.query("eval/stored_answers", uid=uid)
    ]


def batch_rows(run: str, judge: str, results: list[QuestionResult]) -> dict[str, list[dict]]:
    answers, verdicts, claims, judged = [], [], [], []
    for res in results:
        a_uid = res.answer_uid
        if res.answer is not None:
            a = res.answer
            answers.append(
                {
                    "uid": a_uid,
                    "question": res.question.uid,
                    "text": a.text,
                    "tokens": a.tokens,
                    "tokens_source": a.tokens_source,
                    "prompt_tokens": a.prompt_tokens,
                    "context": a.context_uids,
                    "model": a.model,
                    **_variant_props(a),
                }
            )
        j = res.judged
        for v in j.verdicts:
            verdicts.append(
                {
                    "uid": verdict_uid(run, a_uid, v.path_uid),
                    "answer": a_uid,
                    "path": v.path_uid,
                    "judge": judge,
                    "present": v.present,
                    "partial": v.partial,
                    "edges_present": v.edges_present,
                    "edge_sentences": v.edge_sentences,
                    "reason": v.reason,
                    "votes": v.votes,
                }
            )
        for i, c in enumerate(j.claims):
            claims.append(
                {
                    "uid": claim_uid(run, a_uid, i),
                    "answer": a_uid,
                    "pos": i,
                    "text": c.text,
                    "supported": c.supported,
                    "supporting": c.supporting,
                    "supporting_fact": c.supporting_fact,
                    "judge": judge,
                }
            )
        judged.append(
            {
                "answer": a_uid,
                "props": {
                    "judge": judge,
                    "relevancy": j.relevancy,
                    "relevancy_method": j.relevancy_method,
                    "rejected": j.rejected,
                    "duplicates": j.duplicates,
                    "vote_ties": j.vote_ties,
                    "failed_votes": j.failed_votes,
                    "rejected_sources": j.rejected_sources,
                    "judge_prompt_tokens": j.prompt_tokens,
                    "judge_completion_tokens": j.completion_tokens,
                    "at": now(),
                },
            }
        )
    return {"answers": answers, "verdicts": verdicts, "claims": claims, "judged": judged}


def variant_from_props(row: dict[str, Any]) -> AnswerVariant:
    """The variant of a stored answer, read back from the properties `_variant_props` wrote."""
    decoder = row.get("decoder")
    return AnswerVariant(
        sample=row.get("sample") or 0,
        context=row.get("context_variant"),
        preamble=row.get("perturbation"),
        formulation=row.get("formulation"),
        question_text=row.get("formulated"),
        hint_path=row.get("hint_path"),
        decoder_point=row.get("decoder_point"),
        decoder=json.loads(decoder) if isinstance(decoder, str) else None,
    )


def _variant_props(a: AnswerResult) -> dict[str, Any]:
    """The answer's variant and confidence as node properties (a map is not a property
    value in Neo4j: decoder settings are stored as JSON text)."""
    v, c = a.variant, a.confidence
    return {
        "sample": v.sample,
        "context_variant": v.context,
        "perturbation": v.preamble,
        "formulated": v.question_text,
        "hint_path": v.hint_path,
        "decoder_point": v.decoder_point,
        "formulation": v.formulation,
        "decoder": json.dumps(v.decoder, sort_keys=True) if v.decoder else None,
        "confidence": c.mean_logprob if c else None,
        "low_confidence_share": c.low_share if c else None,
        "logprob_tokens": c.tokens if c else None,
    }


def write_batch(
    store: Store, run: str, judge: str, results: list[QuestionResult], usage: dict[str, Any]
) -> None:
    """One transaction: answers, verdicts, claims, the judged marks and the usage totals."""
    rows = batch_rows(run, judge, results)
    stamp = now()

    def work(tx: neo4j.ManagedTransaction) -> None:
        if rows["answers"]:
            Store.tx_query(tx, "eval/write_answers", rows=rows["answers"], run=run, now=stamp)
        if rows["verdicts"]:
            Store.tx_query(tx, "eval/write_verdicts", rows=rows["verdicts"], run=run)
        if rows["claims"]:
            Store.tx_query(tx, "eval/write_claims", rows=rows["claims"], run=run)
        Store.tx_query(tx, "eval/write_judged", rows=rows["judged"], run=run)
        Store.tx_query(tx, "eval/run_add_usage", uid=run, **usage)

    store.transaction(work)


__all__ = [
    "answer_uid",
    "batch_rows",
    "done_answers",
    "finish_run",
    "get_run",
    "list_runs",
    "start_run",
    "stored_answers",
    "write_batch",
]
