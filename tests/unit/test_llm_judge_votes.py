"""The LLM judge's reply shapes, per-call schema, shuffle per vote, majority and self-agreement."""

from __future__ import annotations

import pytest
from sklearn.metrics import cohen_kappa_score

from evaluation.judges.base import shuffled_paths
from evaluation.judges.llm import (
    PathChecklistReply,
    _missing_check,
    checklist_schema,
    judge_name,
    map_path_verdicts,
)
from evaluation.judges.votes import edge_majority, majority, self_agreement
from evaluation.models import EvalPath, EvalQuestion, JudgeResult
from kg.llm import parse_reply


def _q(n: int = 6) -> EvalQuestion:
    paths = [
        EvalPath(
            uid=f"u{i}",
            signature=f"a -- R{i} --> b",
            hops=1 + i % 3,
            labels=[f"R{i}"] * (1 + i % 3),
            concept_keys=["a"] + ["b"] * (1 + i % 3),
            target=i == 0,
        )
        for i in range(n)
    ]
    return EvalQuestion(uid="q1", id=1, domain="demo", text="How?", hop=1, paths=paths)


@pytest.mark.parametrize(
    "reply",
    [
        '{"P1": {"reason": "r", "edges_present": [true], "present": true}, "P2": false}',
        '{"verdicts": [{"path_id": "P1", "present": true}, {"path_id": "P2", "present": false}]}',
        'Sure! ```json\n[{"path_id": "P1", "present": "yes"}, {"path_id": "P2", "present": 0}]```',
        '{"verdicts": {"P1": {"present": true}, "P2": {"present": false}}}',
    ],
)
def test_replies_of_servers_that_ignore_the_schema_are_parsed(reply):
    parsed = parse_reply(reply, PathChecklistReply)
    assert isinstance(parsed, PathChecklistReply)
    assert [(v.path_id, v.present) for v in parsed.verdicts] == [("P1", True), ("P2", False)]


def test_one_bare_verdict_answers_a_checklist_of_one():
    parsed = parse_reply('{"reason": "r", "present": true}', PathChecklistReply)
    assert isinstance(parsed, PathChecklistReply) and parsed.verdicts[0].present
    q = _q(1)
    ids = shuffled_paths(q, 0)
    _missing_check({"P1"})(parsed)  # no id named: the one path of the checklist
    assert list(map_path_verdicts(ids, parsed, JudgeResult(verdicts=[]))) == ["u0"]


def test_the_schema_requires_every_path_id_with_one_boolean_per_edge():
    q = _q()
    ids = shuffled_paths(q, 0)
    schema = checklist_schema(ids)
    assert schema["required"] == [f"P{i + 1}" for i in range(len(ids))]
    assert schema["additionalProperties"] is False
    for pid, p in ids:
        edges = schema["properties"][pid]["properties"]["edges_present"]
        assert edges["minItems"] == edges["maxItems"] == p.hops


def test_each_vote_sees_its_own_reproducible_order():
    q = _q(8)
    orders = [[p.uid for _, p in shuffled_paths(q, 5, vote)] for vote in range(3)]
    assert orders == [[p.uid for _, p in shuffled_paths(q, 5, vote)] for vote in range(3)]
    assert len({tuple(o) for o in orders}) == 3
    assert shuffled_paths(q, 5, 0) == shuffled_paths(q, 5)  # vote 0: the unvoted order


def test_majority_resolves_ties_to_absent():
    assert majority([True, True, False]) == (True, False)
    assert majority([True, False]) == (False, True)
    assert majority([False]) == (False, False)
    assert edge_majority([[True, False], [True, True], [False, True]], 2) == [True, True]


def test_fleiss_kappa_of_two_votes_is_scotts_pi():
    # two raters: Fleiss' kappa is Scott's pi, which equals Cohen's kappa when both raters
    # have the same marginals (here 3 of 6 present each)
    a = [True, True, True, False, False, False]
    b = [True, True, False, True, False, False]
    sa = self_agreement(zip(a, b, strict=True), 2)
    assert sa.decisions == 6 and sa.unanimous == 4
    assert sa.agreement == pytest.approx(100 * 4 / 6)
    assert sa.fleiss_kappa == pytest.approx(cohen_kappa_score(a, b))


def test_self_agreement_is_undefined_when_every_vote_is_the_same():
    sa = self_agreement([[True, True, True]] * 4, 3)
    assert sa.agreement == 100 and sa.fleiss_kappa is None and "undefined" in sa.line()
    assert self_agreement([[True]], 3).decisions == 0  # one valid vote: nothing to compare


def test_self_agreement_does_not_depend_on_the_order_of_the_decisions():
    # the runner collects decisions as they finish, the store returns them in its own order:
    # the stored figures must be equal either way (float sums depend on order)
    none, one = [False, False, False], [True, False, False]
    collected = [none, one, one, one, none, [False, False, True]]
    stored = [one, one, [False, False, True], one, none, none]  # an order that once differed
    assert self_agreement(collected, 3) == self_agreement(stored, 3)


def test_a_voting_or_per_path_judge_has_its_own_name():
    assert judge_name("gpt-4o") == "llm:gpt-4o"
    assert judge_name("gpt-4o", 3, "path") == "llm:gpt-4o[path,votes=3]"
    assert judge_name("m", 1, "path") == "llm:m[path]"
