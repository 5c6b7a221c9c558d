"""Per-question scores of a run, computed from the verdicts and claims stored in the graph."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from evaluation.runs.questions import EvalInputError
from evaluation.runs.record import EvalRunRecord
from evaluation.runs.store import get_run, variant_from_props
from evaluation.scoring.metrics import faithfulness, partial_scores, path_scores
from kg import cypher_files
from kg.store import Store

if TYPE_CHECKING:
    import neo4j


class QuestionScore(BaseModel):
    question: str
    answer: str
    id: int
    domain: str
    theme: str | None
    hop: int
    precision: float
    recall: float
    pas: float
    partial_precision: float
    partial_recall: float
    partial_pas: float
    empty_a: bool
    faithfulness: float | None
    n_claims: int
    tokens: int | None
    tokens_source: str | None
    relevancy: float | None
    relevancy_method: str | None
    rejected: int = 0  # judge named paths the question does not have
    duplicates: int = 0
    foreign: int = 0  # stored verdicts on paths outside the question's valid set (ignored)
    present: dict[str, bool] = {}  # path uid -> judged present (for agreement)
    sample: int = 0  # which sample of the question's answers (0: the first / only one)
    context: str | None = None  # C3 context perturbation id (None: the original question)
    formulation: str | None = None  # PROOF formulation (None: the original)
    decoder_point: str | None = None  # PROOF decoder grid point (None: the run's decoder)
    hint_path: str | None = None  # the distractor an adversarial/hint formulation names

    @property
    def original(self) -> bool:
        """The question as stored, with the run's decoder (sample index aside)."""
        return self.context is None and self.formulation is None and self.decoder_point is None

    confidence: float | None = None  # mean token log-probability (None: no logprobs)
    low_confidence_share: float | None = None


# the answer variant's fields a score carries (as `AnswerVariant` names them)
_VARIANT_FIELDS = {"sample", "context", "formulation", "decoder_point", "hint_path"}


def is_original(row: dict[str, Any]) -> bool:
    """A stored row of the question as asked: no context perturbation, formulation or grid
    point (`QuestionScore.original` for scores)."""
    return all(row.get(k) is None for k in ("context_variant", "formulation", "decoder_point"))


def score_row(row: dict[str, Any]) -> QuestionScore:
    valid = set(row["valid"])
    seen: dict[str, tuple[bool, float]] = {}
    foreign = 0
    # sorted: partial credit is a float sum, and the graph returns verdicts in no fixed order
    # (the same verdicts must give the same score to the last digit, issue 15)
    for path, present, partial in sorted(
        zip(row["v_path"], row["v_present"], row["v_partial"], strict=True), key=lambda v: str(v[0])
    ):
        if path not in valid:
            foreign += 1
        else:
            seen.setdefault(path, (bool(present), float(partial or 0.0)))
    present = {p: ok for p, (ok, _) in seen.items()}
    targets = sorted(row["targets"])
    aon = path_scores(targets, [p for p, ok in present.items() if ok])
    part = partial_scores(targets, {p: c for p, (_, c) in seen.items()})
    n_claims, n_sup = row["n_claims"], row["n_supported"]
    return QuestionScore(
        question=row["question"],
        answer=row["answer"],
        id=row["id"],
        domain=row["domain"],
        theme=row["theme"],
        hop=row["hop"],
        precision=aon.precision,
        recall=aon.recall,
        pas=aon.pas,
        partial_precision=part.precision,
        partial_recall=part.recall,
        partial_pas=part.pas,
        empty_a=aon.empty_a,
        faithfulness=faithfulness([True] * n_sup + [False] * (n_claims - n_sup)),
        n_claims=n_claims,
        tokens=row["tokens"],
        tokens_source=row["tokens_source"],
        relevancy=row.get("relevancy"),
        relevancy_method=row.get("relevancy_method"),
        rejected=row.get("rejected") or 0,
        duplicates=row.get("duplicates") or 0,
        foreign=foreign,
        present=present,
        **variant_from_props(row).model_dump(include=_VARIANT_FIELDS),
        confidence=row.get("confidence"),
        low_confidence_share=row.get("low_confidence_share"),
    )


def _fetch(store: Store, run_id: str) -> list[dict[str, Any]]:
    # plain records (keys + values): the driver's recursive .data() costs more than the query
    text = cypher_files.load("eval/scores")
    with store.session() as s:

        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            result = tx.run(text, {"uid": run_id})
            keys = result.keys()
            return [dict(zip(keys, rec.values(), strict=True)) for rec in result]

        return s.execute_read(work)


def run_scores(
    store: Store, run_id: str, *, all_samples: bool = False
) -> tuple[EvalRunRecord, list[QuestionScore]]:
    """The run record and one score per judged question: its first sample's, without context
    perturbation (unknown run id: EvalInputError). `all_samples`: one score per judged answer
    (every sample and context perturbation)."""
    run = get_run(store, run_id)
    if run.kind not in ("eval", "judge"):
        raise EvalInputError(
            f"run {run_id!r} is a {run.kind} run, not a "
            "PerspectiveBench evaluation (kg eval run / kg eval judge)"
        )
    rows = [r for r in _fetch(store, run_id) if r["targets"]]
    if not all_samples:
        rows = [r for r in rows if not r.get("sample") and is_original(r)]
    return run, [score_row(r) for r in rows]
