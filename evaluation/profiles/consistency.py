"""C3 cross-contextual consistency of a run with `--contexts C` (issue 13).

Per question, the first-sample answer to the original question is compared with the
first-sample answer under each context perturbation:
- path consistency: Jaccard of the judged path sets A (both empty: 1.0);
- answer similarity: cosine of the two answers' embeddings (both empty: 1.0, one empty: 0.0);
each averaged over the question's perturbations. Per run: Spearman's rank correlation between
the path consistency and the original answer's PAS over questions, and the questions whose
scores stay informative: path consistency >= INFORMATIVE_MIN (their answer does not hinge on
content-neutral context, so their score says something about the model).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel

from evaluation.reporting import Table, bootstrap_cis
from evaluation.scoring.question_scores import QuestionScore
from kg.store import Store

INFORMATIVE_MIN = 0.5
Embed = Callable[[list[str]], np.ndarray]


class QuestionConsistency(BaseModel):
    question: str
    id: int
    domain: str
    hop: int
    pas: float  # of the answer to the original question
    perturbations: int
    jaccard: float  # mean over perturbations
    similarity: float | None  # mean answer-embedding cosine (None: no texts given)

    @property
    def informative(self) -> bool:
        return self.jaccard >= INFORMATIVE_MIN


def jaccard(a: set[str], b: set[str]) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def _answered(s: QuestionScore) -> set[str]:
    return {p for p, ok in s.present.items() if ok}


def _cosines(pairs: list[tuple[str, str]], embed: Embed) -> list[float]:
    texts = sorted({t for pair in pairs for t in pair if t.strip()})
    vecs = dict(zip(texts, embed(texts), strict=True)) if texts else {}
    out = []
    for a, b in pairs:
        if not a.strip() or not b.strip():
            out.append(1.0 if not a.strip() and not b.strip() else 0.0)
        else:
            out.append(float(np.dot(vecs[a], vecs[b])))
    return out


def per_question(
    scores: Sequence[QuestionScore],
    texts: dict[str, str] | None = None,
    embed: Embed | None = None,
) -> list[QuestionConsistency]:
    """`scores`: every judged answer of the run; `texts`: answer uid -> text (for similarity)."""
    by_q: dict[str, list[QuestionScore]] = defaultdict(list)
    for s in scores:
        if s.sample == 0:
            by_q[s.question].append(s)
    out = []
    for q in sorted(by_q):
        orig = next((s for s in by_q[q] if s.original), None)
        perturbed = sorted(
            (s for s in by_q[q] if s.context is not None), key=lambda s: s.context or ""
        )
        if orig is None or not perturbed:
            continue  # nothing to compare yet (a partial run)
        jac = [jaccard(_answered(orig), _answered(p)) for p in perturbed]
        sim = None
        if texts is not None and embed is not None:
            pairs = [(texts.get(orig.answer, ""), texts.get(p.answer, "")) for p in perturbed]
            cos = _cosines(pairs, embed)
            sim = sum(cos) / len(cos)
        out.append(
            QuestionConsistency(
                question=q,
                id=orig.id,
                domain=orig.domain,
                hop=orig.hop,
                pas=orig.pas,
                perturbations=len(perturbed),
                jaccard=sum(jac) / len(jac),
                similarity=sim,
            )
        )
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho; None with fewer than 3 points or when either side is constant."""
    if len(x) < 3:
        return None
    from scipy.stats import rankdata

    rx, ry = rankdata(x), rankdata(y)  # ties share their mean rank
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def _embed(texts: list[str]) -> np.ndarray:
    from kg.embeddings import get_embedder

    return get_embedder().encode(texts)


def consistency_tables(
    store: Store, label: str, scores: Sequence[QuestionScore], embed: Embed | None = None
) -> dict[str, Table]:
    """The run's C3 summary and its per-question table."""
    uids = sorted({s.answer for s in scores if s.sample == 0})
    texts = {r["answer"]: r["text"] or "" for r in store.query("eval/answer_texts", uids=uids)}
    rows = per_question(scores, texts, embed or _embed)
    if not rows:
        return {}
    cis = bootstrap_cis(
        {
            "path consistency (Jaccard of A)": [r.jaccard for r in rows],
            "answer similarity (cosine)": [r.similarity for r in rows],
            "PAS (original)": [r.pas * 100 for r in rows],
        },
        strata=[r.hop for r in rows],
    )
    rho = spearman([r.jaccard for r in rows], [r.pas for r in rows])
    rho_sim = spearman([r.similarity or 0.0 for r in rows], [r.pas for r in rows])
    informative = [r for r in rows if r.informative]
    summary = Table(
        title=f"{label} — C3 cross-contextual consistency",
        columns=["measure", "value"],
        rows=[
            {"measure": "questions compared", "value": len(rows)},
            {"measure": "perturbations per question", "value": rows[0].perturbations},
            *({"measure": k, "value": v} for k, v in cis.items()),
            {"measure": "Spearman(path consistency, PAS)", "value": _fmt(rho)},
            {"measure": "Spearman(answer similarity, PAS)", "value": _fmt(rho_sim)},
            {
                "measure": f"informative questions (path consistency >= {INFORMATIVE_MIN})",
                "value": f"{len(informative)} of {len(rows)}",
            },
        ],
        notes=[
            "Per question: the first-sample answer to the original question against the one "
            "under each context perturbation (stored on the answers: context_variant, "
            "perturbation), averaged over perturbations; 95% bootstrap CIs over questions.",
            "Spearman: None with fewer than 3 questions or a constant side.",
        ],
    )
    per_q = Table(
        title=f"{label} — C3 consistency per question",
        columns=[
            "domain",
            "id",
            "hop",
            "PAS",
            "path consistency",
            "answer similarity",
            "informative",
        ],
        rows=[
            {
                "domain": r.domain,
                "id": r.id,
                "hop": r.hop,
                "PAS": round(r.pas * 100, 1),
                "path consistency": round(r.jaccard, 3),
                "answer similarity": None if r.similarity is None else round(r.similarity, 3),
                "informative": "yes" if r.informative else "no",
            }
            for r in rows
        ],
    )
    return {"c3": summary, "c3_questions": per_q}


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"
