"""Read the questions to evaluate from the graph, and refuse ones that cannot be scored."""

from __future__ import annotations

from evaluation.judges.relations import relation_meanings
from evaluation.models import EvalPath, EvalQuestion, Fact
from kg.errors import InputError
from kg.queries.concepts import short_name
from kg.store import Store


class EvalInputError(InputError):
    """Bad evaluation input (unknown run, unscorable question...): nothing has been written."""


def load_questions(
    store: Store,
    *,
    domains: list[str] | None = None,
    hops: list[int] | None = None,
    uids: list[str] | None = None,
    limit: int | None = None,
    skip_invalid: bool = False,
) -> tuple[list[EvalQuestion], list[str]]:
    """Questions in (domain, id) order, and the problems of the ones skipped.

    A question without target paths cannot be scored: an error naming it (or, with
    `skip_invalid`, skipped and reported).
    """
    rows = store.read("eval/questions", domains=domains, hops=hops, uids=uids, limit=limit)
    out, problems = [], []
    for r in rows:
        paths = [EvalPath(**p) for p in r["paths"]]
        q = EvalQuestion(
            uid=r["uid"],
            id=r["id"],
            domain=r["domain"],
            theme=r["theme"],
            text=r["text"],
            hop=r["hop"] or max((p.hops for p in paths if p.target), default=0),
            paths=paths,
            evidence=[Fact(**f) for f in r["evidence"]],
            concepts={c["key"]: c["summary"] for c in r["concepts"]},
            concept_words={c["key"]: list(c.get("topic_words") or []) for c in r["concepts"]},
            concept_names={
                c["key"]: short_name(c["key"], c.get("name"), c["summary"]) for c in r["concepts"]
            },
            relation_meanings=relation_meanings(r.get("palette")),
            imported=bool(r.get("imported")),
        )
        problem = None
        if not q.targets:
            problem = f"{q.ref} has no target paths in the graph (no TARGET link): cannot score it"
        elif any(len(p.keys) != p.hops + 1 or p.stored_hops not in (None, p.hops) for p in paths):
            problem = f"{q.ref} has a path whose concept_keys/labels do not match its hops"
        if problem:
            if not skip_invalid:
                raise EvalInputError(problem + " (use --skip-invalid to skip such questions)")
            problems.append(problem)
            continue
        out.append(q)
    return out, problems
