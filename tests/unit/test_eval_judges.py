"""Mapping judge replies onto a question's paths; prompts; run identity; token counting."""

from __future__ import annotations

import asyncio

import pytest

from evaluation.judges.base import shuffled_paths
from evaluation.judges.llm import (
    ClaimJudgement,
    FaithfulnessReply,
    PathChecklistReply,
    PathJudgement,
    _missing_check,
    map_claims,
    map_path_verdicts,
    path_verdict,
)
from evaluation.models import EvalPath, EvalQuestion, Fact, JudgeResult, Setting, Strategy
from evaluation.responders.prompting import answer_messages, prompt_hashes, responder_prompt_names
from evaluation.responders.responder import OfflineResponder
from evaluation.responders.tokens import count_tokens, split_sentences
from evaluation.runs.spec import RunSpec


def _q() -> EvalQuestion:
    def p(uid, keys, labels, target, reasons):
        return EvalPath(
            uid=uid,
            signature=" -- ".join(keys),
            hops=len(labels),
            labels=labels,
            concept_keys=keys,
            reasons=reasons,
            target=target,
        )

    return EvalQuestion(
        uid="q1",
        id=1,
        domain="demo",
        theme="Operation",
        text="How?",
        hop=2,
        paths=[
            p("t", ["a", "b", "c"], ["X", "Y"], True, ["a x b.", "b y c."]),
            p("d", ["a", "c"], ["Z"], False, ["a z c."]),
        ],
        evidence=[Fact(uid="f1", text="a x b.")],
    )


def test_shuffle_is_seeded_and_hides_roles():
    q = _q()
    ids = shuffled_paths(q, 0)
    assert [pid for pid, _ in ids] == ["P1", "P2"]
    assert shuffled_paths(q, 0) == ids
    assert {p.uid for _, p in ids} == {"t", "d"}


def test_map_verdicts_rejects_unknown_and_counts_duplicates():
    q = _q()
    ids = shuffled_paths(q, 0)
    by_uid = {p.uid: pid for pid, p in ids}
    reply = PathChecklistReply(
        verdicts=[
            PathJudgement(path_id=by_uid["t"], edges_present=[True, False], present=False),
            PathJudgement(path_id=by_uid["d"], edges_present=[True], present=True),
            PathJudgement(path_id="P7", present=True),
            PathJudgement(path_id=by_uid["d"], present=False),
        ]
    )
    res = JudgeResult(verdicts=[])
    mapped = map_path_verdicts(ids, reply, res)
    paths = {p.uid: p for p in q.paths}
    verdicts = [path_verdict(paths[uid], [v], res) for uid, v in mapped.items()]
    got = {v.path_uid: (v.present, v.partial) for v in verdicts}
    assert got == {"t": (False, 0.5), "d": (True, 1.0)}
    assert (res.rejected, res.duplicates) == (1, 1)


def test_a_reply_missing_a_path_maps_only_the_paths_it_judged():
    q = _q()
    ids = shuffled_paths(q, 0)
    first_id, first = ids[0]
    reply = PathChecklistReply.model_validate({first_id: {"present": True}})
    assert set(map_path_verdicts(ids, reply, JudgeResult(verdicts=[]))) == {first.uid}


def test_missing_paths_fail_the_check():
    check = _missing_check({"P1", "P2", "P3"})
    with pytest.raises(ValueError, match="P2, P3"):
        check(PathChecklistReply(verdicts=[PathJudgement(path_id="P1", present=True)]))


def test_claims_need_a_known_source():
    res = JudgeResult(verdicts=[])
    facts = [Fact(uid="f1", text="a x b."), Fact(uid="f2", text="b y c.")]
    map_claims(
        facts,
        FaithfulnessReply(
            claims=[
                ClaimJudgement(claim="c1", supported=True, source_id="S2"),
                ClaimJudgement(claim="c2", supported=True, source_id="2"),
                ClaimJudgement(claim="c3", supported=True, source_id="S9"),
                ClaimJudgement(claim="c4", supported=False),
            ]
        ),
        res,
    )
    assert [(c.supported, c.supporting_fact) for c in res.claims] == [
        (True, "f2"),
        (True, "f2"),
        (False, None),
        (False, None),
    ]
    assert res.rejected_sources == 1


def test_offline_responders():
    q = _q()
    cover = asyncio.run(OfflineResponder("cover-all").answer(q, []))
    target = asyncio.run(OfflineResponder("target-only").answer(q, []))
    empty = asyncio.run(OfflineResponder("empty").answer(q, []))
    assert "a z c." in cover.text and "a x b." in cover.text
    assert "a z c." not in target.text and "b y c." in target.text
    assert empty.text == "" and empty.tokens == 0
    with pytest.raises(ValueError, match="unknown offline responder"):
        OfflineResponder("nope")


def test_answer_prompts_per_setting_and_strategy():
    docs = [Fact(uid="f", text="Doc one.")]
    base = answer_messages("Q?", [], Strategy.plain)
    assert "Reference documents" not in base[1]["content"] and "Q?" in base[1]["content"]
    oracle = answer_messages("Q?", docs, Strategy.negative)
    assert "[1] Doc one." in oracle[1]["content"]
    assert "Leave out every other perspective" in oracle[0]["content"]
    shot = answer_messages("Q?", [], Strategy.one_shot)
    assert "Example question" in shot[1]["content"]
    names = responder_prompt_names(Strategy.one_shot)
    hashes = prompt_hashes(names)
    assert "eval/strategy_one_shot" in hashes and all(len(h) == 12 for h in hashes.values())


def test_run_identity_and_default_id():
    a = RunSpec(responder="cover-all", setting=Setting.oracle)
    b = RunSpec(responder="cover-all", setting=Setting.base)
    h = {"eval/answer_user": "abc"}
    assert a.default_run_id(h) == a.model_copy().default_run_id(h)
    assert a.default_run_id(h) != b.default_run_id(h)
    assert a.default_run_id(h) != a.default_run_id({"eval/answer_user": "abd"})
    # concurrency does not change results, so not the identity
    assert a.identity(h) == a.model_copy(update={"workers": 9}).identity(h)


def test_tokens_and_sentences():
    assert count_tokens("Hello, world!") == 4
    assert split_sentences("One. Two? Three!\nFour") == ["One.", "Two?", "Three!", "Four"]
