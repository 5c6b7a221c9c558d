"""Opinion -> comment matching: embed both, keep the top-k comments by cosine (rank 1 = best).

Each topic's opinions are matched against that topic's Reddit candidates (CANDIDATE_FOR).
Opinions already matched are skipped unless `force`, which replaces their MATCHED edges.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from construction.perspectra.models import MatchRow
from kg.errors import StoreError
from kg.store import Store

if TYPE_CHECKING:
    import neo4j

Encoder = Callable[[list[str]], np.ndarray]


def top_k(
    opinion_vecs: np.ndarray, comment_vecs: np.ndarray, k: int
) -> list[list[tuple[int, float]]]:
    """Per opinion, (comment index, cosine) of the k most similar comments, best first.

    Vectors are L2-normalized, so the dot product is the cosine. Ties keep comment order.
    """
    if len(comment_vecs) == 0:
        return [[] for _ in range(len(opinion_vecs))]
    sims = opinion_vecs @ comment_vecs.T
    k = min(k, comment_vecs.shape[0])
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return [[(int(j), float(sims[i, j])) for j in row] for i, row in enumerate(order)]


@dataclass
class MatchReport:
    topics: int = 0
    opinions_matched: int = 0
    opinions_skipped: int = 0  # already matched (use --force to redo)
    opinions_short: int = 0  # fewer than k candidates available
    edges: int = 0
    per_topic: dict[str, int] = field(default_factory=dict)


def match_topics(
    store: Store,
    encode: Encoder,
    model_name: str,
    k: int = 5,
    force: bool = False,
    topic: str | None = None,
) -> MatchReport:
    report = MatchReport()
    for rec in store.read("perspectra/match_inputs", topic=topic):
        report.topics += 1
        todo = [o for o in rec["opinions"] if force or not o["matched"]]
        report.opinions_skipped += len(rec["opinions"]) - len(todo)
        if not todo:
            continue
        comments = rec["comments"]
        vec_o = encode([o["text"] for o in todo])
        vec_c = encode([c["text"] for c in comments])
        rows = []
        for op, best in zip(todo, top_k(vec_o, vec_c, k), strict=True):
            report.opinions_short += len(best) < k
            rows += [
                MatchRow(
                    opinion_uid=op["uid"],
                    comment_uid=comments[j]["uid"],
                    rank=r,
                    cosine=cos,
                    model=model_name,
                )
                for r, (j, cos) in enumerate(best, start=1)
            ]
        _replace_matches(store, [o["uid"] for o in todo], rows)
        report.opinions_matched += len(todo)
        report.edges += len(rows)
        report.per_topic[rec["topic"]] = len(todo)
    return report


def _replace_matches(store: Store, opinion_uids: list[str], rows: list[MatchRow]) -> None:
    def work(tx: neo4j.ManagedTransaction) -> None:
        Store.tx_query(tx, "perspectra/delete_matches", uids=opinion_uids)
        got = Store.tx_query(tx, "perspectra/merge_matches", rows=[r.model_dump() for r in rows])
        if rows and (not got or got[0]["n"] != len(rows)):
            raise StoreError("matches: some opinions or comments vanished; nothing written")

    store.transaction(work)
