"""Per-question scores of a run, computed from the verdicts and claims stored in the graph."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from evaluation.metrics import faithfulness, partial_scores, path_scores
from evaluation.runs import get_run
from kg.store import Store


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


def score_row(row: dict[str, Any]) -> QuestionScore:
    valid = set(row["valid"])
    seen: dict[str, dict] = {}
    foreign = 0
    for v in row["verdicts"]:
        if v["path"] not in valid:
            foreign += 1
        else:
            seen.setdefault(v["path"], v)
    present = {p: bool(v["present"]) for p, v in seen.items()}
    aon = path_scores(row["targets"], [p for p, ok in present.items() if ok])
    part = partial_scores(row["targets"], {p: float(v["partial"] or 0.0)
                                           for p, v in seen.items()})
    n_claims, n_sup = row["n_claims"], row["n_supported"]
    j = row["judged"] or {}
    return QuestionScore(
        question=row["question"], answer=row["answer"], id=row["id"], domain=row["domain"],
        theme=row["theme"], hop=row["hop"], precision=aon.precision, recall=aon.recall,
        pas=aon.pas, partial_precision=part.precision, partial_recall=part.recall,
        partial_pas=part.pas, empty_a=aon.empty_a,
        faithfulness=faithfulness([True] * n_sup + [False] * (n_claims - n_sup)),
        n_claims=n_claims, tokens=row["tokens"], tokens_source=row["tokens_source"],
        relevancy=j.get("relevancy"), relevancy_method=j.get("relevancy_method"),
        rejected=j.get("rejected") or 0, duplicates=j.get("duplicates") or 0, foreign=foreign,
        present=present,
    )


def run_scores(store: Store, run_id: str) -> tuple[dict[str, Any], list[QuestionScore]]:
    """The run record and one score per judged question (unknown run id: EvalInputError)."""
    run = get_run(store, run_id)
    rows = store.read("eval/scores", uid=run_id)
    return run, [score_row(r) for r in rows if r["targets"]]
