"""The LLM path judge over real HTTP (tests/llm_server.py): the schema it sends, its seeded
shuffle, votes and their self-agreement, per-path calls, and replies that miss a verdict."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from llm_server import PATHS_MARKER, LLMTestServer

from evaluation.judges.llm import VOTE_TEMPERATURE, LLMJudge
from evaluation.judges.votes import majority
from evaluation.models import EvalPath, EvalQuestion, JudgeResult
from kg.llm import LLMClient

ANSWER = "A stated answer."
_LINE = re.compile(r"^(P\d+): (.+)$", re.MULTILINE)


def _question(n: int = 5) -> EvalQuestion:
    paths = [
        EvalPath(
            uid=f"path-{i}",
            signature=f"c{i} -- REL{i} --> d{i}",
            hops=1,
            labels=[f"REL{i}"],
            concept_keys=[f"c{i}", f"d{i}"],
            reasons=[f"c{i} rel{i} d{i}."],
            target=i < 2,
        )
        for i in range(n)
    ]
    return EvalQuestion(uid="q-http", id=1, domain="demo", text="How?", hop=1, paths=paths)


def _checklist(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(neutral id, signature) of every path in the request's checklist, in prompt order."""
    text = body["messages"][0]["content"].split("Checklist of paths:", 1)[1]
    return _LINE.findall(text)


def _vote(body: dict[str, Any]) -> int:
    return int(body.get("seed", 0)) % 1000


# signature index -> the scripted present/absent of votes 0, 1, 2
TABLE = {0: (1, 1, 0), 1: (1, 0, 0), 2: (0, 0, 0), 3: (1, 1, 1), 4: (0, 1, 0)}


def _scripted(body: dict[str, Any], skip: set[tuple[int, int]] = frozenset()) -> dict:
    """Keyed verdicts as the schema asks; `skip` = (vote, path index) left out of the reply."""
    out = {}
    for pid, sig in _checklist(body):
        i = int(re.search(r"REL(\d+)", sig).group(1))
        if (_vote(body), i) in skip:
            continue
        present = bool(TABLE[i % len(TABLE)][_vote(body) % 3])
        out[pid] = {"reason": "scripted", "edges_present": [present], "present": present}
    return out


def _judge(server: LLMTestServer, **kw: Any) -> LLMJudge:
    return LLMJudge(
        LLMClient(server.config(role="judge", model="judge-model")),
        relevancy_n=0,
        faithfulness=False,
        **kw,
    )


def _run(judge: LLMJudge, q: EvalQuestion) -> JudgeResult:
    return judge.client.run_sync(judge.judge(q, ANSWER, []))


def _path_requests(server: LLMTestServer):
    return [r.body for r in server.requests_matching(PATHS_MARKER) if r.status == 200]


def test_the_request_carries_a_schema_naming_every_path(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_scripted)
    q = _question()
    result = _run(_judge(llm_server), q)
    (body,) = _path_requests(llm_server)
    rf = body["response_format"]
    assert rf["type"] == "json_schema"
    schema = rf["json_schema"]["schema"]
    ids = [pid for pid, _ in _checklist(body)]
    assert schema["required"] == ids and set(schema["properties"]) == set(ids)
    assert {v.path_uid: v.present for v in result.verdicts} == {
        f"path-{i}": bool(TABLE[i][0]) for i in TABLE
    }
    assert result.failed_paths == [] and result.vote_ties == 0


def test_a_server_without_json_schema_gets_it_in_the_prompt_and_a_list_reply_parses():
    with LLMTestServer(supports_json_schema=False) as server:

        def as_list(body):  # a server that ignores the format: a bare list of verdicts
            return [{"path_id": k, **v} for k, v in _scripted(body).items()]

        server.add_rule(match=PATHS_MARKER, reply=as_list)
        result = _run(_judge(server), _question())
        assert server.requests[0].status == 400  # the schema was refused...
        retried = server.requests[1].body
        assert "response_format" not in retried
        assert '"required": ["P1", "P2", "P3", "P4", "P5"]' in retried["messages"][0]["content"]
        assert len(result.verdicts) == 5 and not result.failed_paths  # ...and the reply parsed


def test_the_shuffle_is_seeded_reproducible_and_differs_per_vote(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_scripted)
    q = _question(6)

    def orders(seed: int) -> dict[int, list[str]]:
        llm_server.requests.clear()
        _run(_judge(llm_server, votes=3, seed=seed), q)
        return {_vote(b): [sig for _, sig in _checklist(b)] for b in _path_requests(llm_server)}

    first = orders(1)
    assert sorted(first) == [0, 1, 2]
    assert orders(1) == first  # the same seed: the same order for each vote
    assert len({tuple(o) for o in first.values()}) == 3  # each vote its own order
    assert orders(2) != first  # another seed, other orders


def test_votes_take_the_majority_and_report_self_agreement(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_scripted)
    q = _question()
    result = _run(_judge(llm_server, votes=3), q)
    bodies = _path_requests(llm_server)
    assert len(bodies) == 3
    assert {b["temperature"] for b in bodies} == {VOTE_TEMPERATURE}  # votes are samples
    got = {v.path_uid: (v.present, v.votes) for v in result.verdicts}
    for i, votes in TABLE.items():
        assert got[f"path-{i}"] == (majority([bool(x) for x in votes])[0], [bool(x) for x in votes])
    # self-agreement of the stored votes against pairs counted here
    from evaluation.judges.votes import self_agreement

    sa = self_agreement([v.votes for v in result.verdicts], 3)
    pairs = [a == b for v in TABLE.values() for a, b in itertools.combinations(v, 2)]
    assert sa.agreement == pytest.approx(100 * sum(pairs) / len(pairs))
    assert sa.unanimous == sum(len(set(v)) == 1 for v in TABLE.values())


def test_an_even_vote_count_ties_to_absent_and_counts_the_tie(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_scripted)
    result = _run(_judge(llm_server, votes=2), _question())
    ties = [i for i, v in TABLE.items() if v[0] != v[1]]
    assert result.vote_ties == len(ties)
    assert all(not v.present for v in result.verdicts if int(v.path_uid[-1]) in ties)


def test_per_path_granularity_asks_one_call_per_path_and_vote(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_scripted)
    q = _question(4)
    result = _run(_judge(llm_server, votes=3, granularity="path"), q)
    bodies = _path_requests(llm_server)
    assert len(bodies) == len(q.paths) * 3
    for b in bodies:
        assert [pid for pid, _ in _checklist(b)] == ["P1"]
        assert b["response_format"]["json_schema"]["schema"]["required"] == ["P1"]
    assert len({(b["messages"][-1]["content"], b["seed"]) for b in bodies}) == len(bodies)
    assert {v.path_uid: v.votes for v in result.verdicts} == {
        f"path-{i}": [bool(x) for x in TABLE[i]] for i in range(4)
    }


def test_a_reply_missing_a_verdict_is_a_failed_judgement_not_absent(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=lambda b: _scripted(b, {(0, 3)}))
    q = _question()
    result = _run(_judge(llm_server), q)
    assert result.failed_paths == ["path-3"]
    assert "path-3" not in {v.path_uid for v in result.verdicts}  # not a verdict "absent"
    assert "c3 -- REL3 --> d3" in result.failures[0] and "P" in result.failures[0]
    assert len(llm_server.requests_matching("could not be used")) == 1  # one repair request
    assert len(result.verdicts) == 4


def test_a_vote_missing_a_verdict_leaves_the_path_to_the_other_votes(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=lambda b: _scripted(b, {(1, 0)}))
    result = _run(_judge(llm_server, votes=3), _question())
    assert result.failed_paths == [] and result.failed_votes == 1
    v0 = next(v for v in result.verdicts if v.path_uid == "path-0")
    assert v0.votes == [True, False] and not v0.present and result.vote_ties == 1


def test_judging_twice_makes_the_same_calls(llm_server):
    llm_server.add_rule(match=PATHS_MARKER, reply=_scripted)
    q = _question()
    first = _run(_judge(llm_server, votes=3), q)
    sent = sorted(str(b) for b in _path_requests(llm_server))
    llm_server.requests.clear()
    again = _run(_judge(llm_server, votes=3), q)
    assert sorted(str(b) for b in _path_requests(llm_server)) == sent
    assert first.verdicts == again.verdicts


def test_votes_and_granularity_are_checked(llm_server):
    client = LLMClient(llm_server.config(role="judge"))
    with pytest.raises(ValueError, match="votes"):
        LLMJudge(client, votes=0)
    with pytest.raises(ValueError, match="granularity"):
        LLMJudge(client, granularity="sentence")  # type: ignore[arg-type]
    assert llm_server.calls == 0


def test_validation_leaves_failed_judgements_out_and_counts_them(llm_server):
    from evaluation.judges.gold import GoldAnswer
    from evaluation.judges.validation import decide, summarize, validation_table

    llm_server.add_rule(match=PATHS_MARKER, reply=lambda b: _scripted(b, {(0, 3), (1, 3)}))
    q = _question()
    for i, p in enumerate(q.paths):
        p.name = f"n{i}"
    gold = GoldAnswer(
        answer_id="a1",
        question=q,
        style="base",
        answer=ANSWER,
        present={f"n{i}": bool(TABLE[i][0]) for i in TABLE},
        line=1,
    )
    judge = _judge(llm_server, votes=2)
    decisions, errors = decide(judge, [gold])
    assert errors == [] and decisions[0].failed == ["n3"]
    assert "n3" not in decisions[0].judge and "n3" not in decisions[0].gold
    v = summarize(judge.name, decisions, "gold.jsonl", "0" * 64, errors, votes=2)
    assert v.failed_paths == 1 and v.overall.paths == len(q.paths) - 1
    assert v.self_agreement is not None and v.self_agreement.votes == 2
    assert v.self_agreement.decisions == len(q.paths) - 1
    notes = validation_table(v).notes
    assert any("1 path judgement(s) failed" in n for n in notes)
    assert v.self_agreement.line() in notes
