"""Truthful validity: the kind of answers a gold set holds, kappa per kind, the trust a report
prints (no green below 0.6, natural answers first) and its warnings."""

from __future__ import annotations

import json

import pytest

from evaluation.judges.gold import GoldFileError, load_gold
from evaluation.judges.gold_kinds import kind_of_style, setting_of_style
from evaluation.judges.trust import judge_trust
from evaluation.judges.validation import AnswerDecisions, _kind_props, summarize, validation_table
from evaluation.models import EvalPath, EvalQuestion

P = {"path_0": True, "path_1": False}


def _question(qid: int) -> EvalQuestion:
    paths = [
        EvalPath(
            uid=f"q{qid}p{i}",
            signature=f"a -- R{i} --> b",
            hops=1,
            labels=[f"R{i}"],
            concept_keys=["a", "b"],
            target=i == 0,
            name=f"path_{i}",
        )
        for i in range(2)
    ]
    return EvalQuestion(uid=f"q{qid}", id=qid, domain="d", text="?", hop=1, paths=paths)


def _write(tmp_path, rows: list[dict]):
    f = tmp_path / "gold.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f


def _gold(answer_id: str, qid: int, present: dict, **kw) -> dict:
    return {"answer_id": answer_id, "question_id": qid, "answer": "text", "present": present, **kw}


def _d(aid: str, style: str, kind: str, words: int, judge: list[bool], gold: list[bool]):
    names = ["path_0", "path_1"]
    return AnswerDecisions(
        answer_id=aid,
        style=style,
        kind=kind,
        setting=setting_of_style(style),
        words=words,
        hop=1,
        judge=dict(zip(names, judge, strict=True)),
        gold=dict(zip(names, gold, strict=True)),
        targets=["path_0"],
    )


@pytest.mark.parametrize(
    ("style", "kind", "setting"),
    [
        ("base", "natural", "base"),
        ("Oracle", "natural", "oracle"),
        ("negative", "natural", "oracle"),
        ("midmodel", "natural", "base"),
        ("aligned", "constructed", None),
        ("drifted", "constructed", None),
        ("smollm2-135m-oracle", "unknown", None),
    ],
)
def test_style_names_say_kind_and_setting(style, kind, setting):
    assert (kind_of_style(style), setting_of_style(style)) == (kind, setting)


def test_gold_kind_declared_given_or_inferred(tmp_path):
    f = _write(
        tmp_path,
        [
            _gold("a", 1, P, style="base"),
            _gold("b", 1, P, style="aligned"),
            _gold("c", 1, P, style="gpt-x", kind="natural", setting="rag-bm25"),
            _gold("d", 1, P, style="gpt-y"),
        ],
    )
    got = {g.answer_id: (g.kind, g.setting) for g in load_gold(f, [_question(1)])}
    assert got == {
        "a": ("natural", "base"),
        "b": ("constructed", None),
        "c": ("natural", "rag-bm25"),
        "d": ("unknown", None),
    }
    given = load_gold(
        _write(tmp_path, [_gold("d", 1, P, style="gpt-y")]), [_question(1)], "natural"
    )
    assert given[0].kind == "natural"


def test_bad_kind_setting_and_annotators_are_refused(tmp_path):
    f = _write(
        tmp_path,
        [
            _gold("a", 1, P, kind="real"),
            _gold("b", 1, P, setting="sunny"),
            _gold("c", 1, P, annotators=[P, {"path_0": True}]),
            _gold("d", 1, P, annotators="x"),
            _gold("e", 1, P, kind="constructed"),
        ],
    )
    with pytest.raises(GoldFileError) as err:
        load_gold(f, [_question(1)], "natural")
    problems = err.value.problems
    assert problems[0] == f"{f}:1:kind: must be natural or constructed, got 'real'"
    assert problems[1].startswith(f"{f}:2:setting: must be one of base, oracle")
    assert problems[2].startswith(f"{f}:3:annotators[1]: missing labels for path(s) path_1")
    assert problems[3].startswith(f"{f}:4:annotators: must be a list")
    assert problems[4] == f"{f}:5:kind: declared constructed, but --gold-kind natural was given"


def test_validation_per_kind_with_gold_profile_and_stored_figures():
    ds = [
        _d("n1", "oracle", "natural", 200, [True, False], [True, False]),
        _d("n2", "base", "natural", 400, [False, False], [True, True]),
        _d("n3", "negative", "natural", 300, [True, True], [True, True]),
        _d("c1", "aligned", "constructed", 40, [True, False], [True, False]),
    ]
    v = summarize("offline:x", ds, "/data/mixed.jsonl", "cd" * 32)
    assert v.gold_kind == "mixed"
    assert [g.group for g in v.by_kind] == ["natural", "constructed"]
    assert [g.answers for g in v.by_kind] == [3, 1]
    nat = v.profiles[0]
    assert (nat.words_min, nat.words_median, nat.words_max) == (200, 300.0, 400)
    assert nat.settings == ["base", "oracle"] and v.profiles[1].settings == []
    props = _kind_props(v)
    assert props["natural_paths"] == 6 and props["natural_words"] == [200, 300.0, 400]
    assert props["constructed_kappa"] == v.by_kind[1].kappa.mean
    md = validation_table(v).to_markdown()
    assert "| oracle (natural) |" in md and "mixed.jsonl (sha256 cdcdcdcdcdcd)" in md
    agreement_cell = validation_table(v).cell(validation_table(v).rows[0], "agreement %")
    assert agreement_cell.split(" ")[0] == f"{v.overall.agreement.mean:.1f}"


def _node(kind: str, kappa: float, at: str, words=(150, 280, 450), settings=("base", "oracle")):
    return {
        "judge": "j",
        "gold_file": f"/g/{kind}.jsonl",
        "gold_hash": "ef" * 32,
        "at": at,
        "kappa": kappa,
        f"{kind}_kappa": kappa,
        f"{kind}_kappa_low": kappa - 0.1,
        f"{kind}_kappa_high": kappa + 0.1,
        f"{kind}_paths": 208,
        f"{kind}_answers": 48,
        f"{kind}_words": list(words),
        f"{kind}_settings": list(settings) if kind == "natural" else [],
    }


def test_trust_headline_is_natural_and_never_green_below_point_six():
    nodes = [_node("constructed", 0.83, "2026-02"), _node("natural", 0.27, "2026-01")]
    t = judge_trust("j", nodes)
    assert t.natural is not None and t.natural.kappa == 0.27
    assert t.level == "weak" and t.badge() == "bad"
    assert t.summary().startswith("weak: kappa 0.27 [0.17, 0.37] on natural answers")
    assert "kappa 0.83" in t.summary() and "constructed answers" in t.summary()
    line = t.line()
    assert "natural.jsonl, sha256 efefefefefef" in line and "constructed.jsonl" in line
    assert judge_trust("j", [_node("natural", 0.5, "x")]).badge() == "warn"
    ok = judge_trust("j", [_node("natural", 0.7, "x")])
    assert ok.level == "validated" and ok.badge() == "ok"
    only = judge_trust("j", [_node("constructed", 0.9, "x")])
    assert only.level == "constructed-only" and only.badge() == "warn"
    assert "unvalidated on natural answers" in only.summary()
    assert (
        judge_trust("j", [])
        .line()
        .endswith("unvalidated (no `kg judge validate` result in the graph)")
    )


def test_old_stored_validation_kind_from_its_style_names():
    node = {
        "judge": "j",
        "kappa": 0.83,
        "gold_file": "gold.jsonl",
        "gold_hash": "aa" * 32,
        "at": "x",
        "summary": json.dumps({"by_style": [{"group": "aligned"}, {"group": "blended"}]}),
    }
    t = judge_trust("j", [node])
    assert t.constructed is not None and t.natural is None and t.level == "constructed-only"


def test_warnings_when_run_answers_differ_from_the_gold():
    t = judge_trust("j", [_node("natural", 0.7, "x")])
    assert t.warnings([280, 300, 200], "oracle") == []
    [w] = t.warnings([20, 30, 25], "oracle")
    assert "median 25 words" in w and "150-450 words" in w
    [w] = t.warnings([280], "rag-bm25")
    assert "never validated on answers of the rag-bm25 setting" in w and "base, oracle" in w
    c = judge_trust("j", [_node("constructed", 0.9, "x")])
    assert any("stand for no run setting" in w for w in c.warnings([280], "oracle"))
