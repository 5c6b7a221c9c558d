"""Gold files and answer files (refused with file:line:field), and the validation statistics
(kappa, precision/recall of "present", per-answer score errors, cross-validation folds)."""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score

from evaluation.judges.base import Judge
from evaluation.judges.calibration import cross_validate, folds_by_question
from evaluation.judges.gold import GoldFileError, first_answers, load_gold
from evaluation.judges.validation import (
    AnswerDecisions,
    answer_errors,
    group_stats,
    kappa,
    summarize,
    trust_line,
)
from evaluation.models import EvalPath, EvalQuestion, JudgeResult, PathVerdict
from evaluation.runs.answer_import import AnswerFileError, parse_answers


def _question(qid: int, domain: str = "d", n_paths: int = 2) -> EvalQuestion:
    paths = [
        EvalPath(
            uid=f"{domain}{qid}p{i}",
            signature=f"a -- R{i} --> b",
            hops=1,
            labels=[f"R{i}"],
            concept_keys=["a", "b"],
            target=i == 0,
            name=f"path_{i}",
        )
        for i in range(n_paths)
    ]
    return EvalQuestion(uid=f"{domain}{qid}", id=qid, domain=domain, text="?", hop=1, paths=paths)


def _write(tmp_path, rows: list) -> object:
    f = tmp_path / "file.jsonl"
    f.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return f


def _gold(answer_id: str, qid: int, present: dict, **kw) -> dict:
    return {"answer_id": answer_id, "question_id": qid, "answer": "text", "present": present, **kw}


def test_gold_file_loads_and_keeps_style(tmp_path):
    f = _write(tmp_path, [_gold("x", 1, {"path_0": True, "path_1": False}, style="aligned")])
    [g] = load_gold(f, [_question(1)])
    assert g.style == "aligned" and g.present == {"path_0": True, "path_1": False} and g.line == 1


def test_bad_gold_file_is_refused_with_file_line_field(tmp_path):
    f = _write(
        tmp_path,
        [
            _gold("a", 99, {"path_0": True}),  # unknown question
            _gold("b", 1, {"path_0": True, "path_1": False, "path_7": True}),  # unknown path name
            _gold("c", 1, {"path_0": True}),  # missing label for path_1
            _gold("d", 1, {"path_0": "yes", "path_1": False}),  # not a boolean
            "{not json",
            _gold("a", 1, {"path_0": True, "path_1": False}),  # duplicate answer id
        ],
    )
    with pytest.raises(GoldFileError) as err:
        load_gold(f, [_question(1)])
    problems = err.value.problems
    assert f"{f}:1:question_id: unknown question 99" in problems[0]
    assert any(p.startswith(f"{f}:2:present.path_7: unknown path name") for p in problems)
    assert any(p.startswith(f"{f}:3:present: missing labels for path(s) path_1") for p in problems)
    assert any(p.startswith(f"{f}:4:present.path_0: label must be true or false") for p in problems)
    assert any(p.startswith(f"{f}:5:-: not JSON") for p in problems)
    assert any(p.startswith(f"{f}:6:answer_id: duplicate of line 1") for p in problems)


def test_gold_question_ids_shared_by_two_domains_need_a_domain(tmp_path):
    qs = [_question(1, "x"), _question(1, "y")]
    with pytest.raises(GoldFileError, match=r":1:question_id: question 1 exists in domains x, y"):
        load_gold(_write(tmp_path, [_gold("a", 1, {"path_0": True, "path_1": True})]), qs)
    [g] = load_gold(
        _write(tmp_path, [_gold("a", 1, {"path_0": True, "path_1": True}, domain="y")]), qs
    )
    assert g.question.domain == "y"


def test_answer_file_parsing_and_errors(tmp_path):
    good = _write(
        tmp_path,
        [
            {
                "question_id": 1,
                "answer": "hello world",
                "model": "m",
                "completion_tokens": 7,
                "prompt_tokens": 3,
            }
        ],
    )
    [a] = parse_answers(good, [_question(1)])
    assert (a.tokens, a.tokens_source, a.prompt_tokens, a.model) == (7, "usage", 3, "m")
    counted = _write(tmp_path, [{"question_id": 1, "answer": "two words"}])
    assert parse_answers(counted, [_question(1)])[0].tokens == 2
    bad = _write(
        tmp_path,
        [
            {"question_id": 5, "answer": "x"},
            {"question_id": 1},
            {"question_id": 1, "answer": "x", "completion_tokens": -1},
            {"question_id": 1, "answer": "x"},
            {"question_id": 1, "answer": "y"},
        ],
    )
    with pytest.raises(AnswerFileError) as err:
        parse_answers(bad, [_question(1)])
    p = err.value.problems
    assert p[0].startswith(f"{bad}:1:question_id: unknown question 5")
    assert p[1].startswith(f"{bad}:2:answer: missing")
    assert p[2].startswith(f"{bad}:3:completion_tokens: must be a non-negative integer")
    assert any(x.startswith(f"{bad}:5:question_id: question 1 already answered on line") for x in p)


def _decisions(judge: list[bool], gold: list[bool], style="s", hop=1, aid="a") -> AnswerDecisions:
    names = [f"path_{i}" for i in range(len(gold))]
    return AnswerDecisions(
        answer_id=aid,
        style=style,
        hop=hop,
        judge=dict(zip(names, judge, strict=True)),
        gold=dict(zip(names, gold, strict=True)),
        targets=["path_0"],
    )


def test_kappa_matches_scikit_learn():
    j = [True, True, False, False, True, False, True, False]
    g = [True, False, False, False, True, True, True, False]
    assert kappa(list(zip(j, g, strict=True))) == pytest.approx(cohen_kappa_score(j, g))
    assert kappa([(True, True), (True, True)]) == 1.0  # both constant and equal


def test_group_stats_precision_recall_and_score_errors():
    ds = [
        _decisions([True, True], [True, False], aid="a"),  # tp, fp
        _decisions([False, False], [True, False], aid="b"),
    ]  # fn, tn
    st = group_stats("all", ds)
    assert st.paths == 4 and st.answers == 2
    assert st.agreement.mean == pytest.approx(50.0)
    assert st.precision.mean == pytest.approx(0.5) and st.recall.mean == pytest.approx(0.5)
    assert (st.judge_present, st.gold_present) == (2, 2)
    # answer a: judge PAS = 2*(0.5*1)/(1.5) = 66.7 vs gold 100; answer b: 0 vs 100
    assert answer_errors(ds[0])[0] == pytest.approx(100 / 3)
    assert st.pas_mae.mean == pytest.approx((100 / 3 + 100) / 2)
    assert st.kappa.low is not None and st.kappa.low <= st.kappa.mean <= st.kappa.high


def test_summary_groups_by_style_and_hop_and_trust_line():
    ds = [
        _decisions([True, False], [True, False], style="aligned", hop=1, aid="a"),
        _decisions([True, True], [True, False], style="blended", hop=2, aid="b"),
    ]
    v = summarize("offline:x", ds, "gold.jsonl", "ab" * 32)
    assert [g.group for g in v.by_style] == ["aligned", "blended"]
    assert [g.group for g in v.by_hop] == ["1-hop", "2-hop"]
    assert v.by_style[0].agreement.mean == 100.0
    assert "unvalidated" in trust_line("offline:x", None)
    line = trust_line(
        "offline:x",
        {
            "kappa": 0.71,
            "kappa_low": 0.6,
            "kappa_high": 0.8,
            "paths": 4,
            "answers": 2,
            "gold_file": "/a/gold.jsonl",
            "gold_hash": "ab" * 32,
            "at": "2026-01-01T00:00:00",
        },
    )
    assert "kappa 0.71 [0.60, 0.80]" in line and "gold.jsonl" in line
    assert "unknown answers" in line  # no style names: the kind of answers is not known


class _ThresholdJudge(Judge):
    """Marks path_0 present when the answer is longer than `cut` characters."""

    def __init__(self, cut: int) -> None:
        self.cut = cut
        self.name = f"test:len>{cut}"

    async def judge(self, q, answer, gt) -> JudgeResult:
        return JudgeResult(
            verdicts=[
                PathVerdict(
                    path_uid=p.uid,
                    present=(p.name == "path_0" and len(answer) > self.cut),
                    partial=0.0,
                )
                for p in q.paths
            ]
        )


def test_cross_validation_holds_out_whole_questions(tmp_path):
    rows = []
    for qid in range(1, 7):
        rows.append(
            {
                "answer_id": f"long{qid}",
                "question_id": qid,
                "answer": "x" * 50,
                "present": {"path_0": True, "path_1": False},
            }
        )
        rows.append(
            {
                "answer_id": f"short{qid}",
                "question_id": qid,
                "answer": "x" * 5,
                "present": {"path_0": False, "path_1": False},
            }
        )
    items = load_gold(_write(tmp_path, rows), [_question(q) for q in range(1, 7)])
    folds = folds_by_question(items, 3)
    assert sorted(u for f in folds for u in f) == sorted({g.question.uid for g in items})
    cv = cross_validate(items, [{"cut": 100}, {"cut": 10}, {"cut": 1}], _ThresholdJudge, k=3)
    assert sorted(d.answer_id for d in cv.decisions) == sorted(g.answer_id for g in items)
    assert all(f.setting == {"cut": 10} for f in cv.folds)  # the only perfect setting
    assert cv.kappa == 1.0 and cv.chosen_on_all == {"cut": 10}


def test_limit_takes_answers_round_robin_over_questions(tmp_path):
    rows = [
        _gold(f"q{q}-{k}", q, {"path_0": True, "path_1": False}) for q in (1, 2, 3) for k in (1, 2)
    ]
    items = load_gold(_write(tmp_path, rows), [_question(1), _question(2), _question(3)])
    assert [g.answer_id for g in first_answers(items, 4)] == ["q1-1", "q1-2", "q2-1", "q3-1"]
    assert [g.answer_id for g in first_answers(items, 2)] == ["q1-1", "q2-1"]
    assert first_answers(items, None) == items and first_answers(items, 99) == items
