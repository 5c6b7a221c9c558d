"""The judge registry: names, options models, the spec's check and the batching default."""

from __future__ import annotations

import pytest

from evaluation.judges import registry
from evaluation.judges.base import Judge
from evaluation.judges.registry import JudgeOptions
from evaluation.judges.validation import decide
from evaluation.models import EvalPath, EvalQuestion, Fact, JudgeResult, PathVerdict
from evaluation.runs.questions import EvalInputError
from evaluation.runs.spec import RunSpec
from kg.llm import LLMClient


class LengthOptions(JudgeOptions):
    cut: int = 5


class LengthJudge(Judge):
    def __init__(self, cut: int) -> None:
        self.cut, self.name = cut, f"toy:len>{cut}"

    async def judge(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult:
        present = len(answer) > self.cut
        return JudgeResult(
            verdicts=[PathVerdict(path_uid=p.uid, present=present, partial=1.0) for p in q.paths]
        )


@pytest.fixture
def length_judge():
    @registry.register("length", LengthOptions)
    def _make(opts: LengthOptions, client: LLMClient | None) -> Judge:
        return LengthJudge(opts.cut)

    yield
    registry.unregister("length")


def _question() -> EvalQuestion:
    path = EvalPath(uid="p1", keys=["a", "b"], labels=["causes"], target=True, name="path_0")
    return EvalQuestion(uid="q1", id=1, domain="d", text="why?", hop=1, paths=[path])


def test_builtin_judges_are_registered_with_their_options():
    assert registry.names()[:3] == ["edge-evidence", "embedding", "llm"]
    assert registry.offline_names() == ["edge-evidence", "embedding"]
    emb = registry.make("embedding", {"path_threshold": 0.5, "unrelated": 1})
    assert emb.name == "baseline:embedding(path>=0.5,claim>=0.7)" and emb.batches
    assert registry.spec_name("openai/gpt-4o") == "llm" and registry.entry("llm").needs_llm
    with pytest.raises(EvalInputError, match="needs --judge-model"):
        registry.make("llm", {})
    with pytest.raises(EvalInputError, match="unknown offline judge 'offline:nope'"):
        registry.entry_for("offline:nope")


def test_a_toy_judge_registers_once_and_every_user_sees_it(length_judge):
    assert "length" in registry.offline_names()
    spec = RunSpec(judge="length")  # the spec's name check asks the registry
    judge = registry.make(spec.judge, {"cut": 3, **spec.judge_settings()})
    assert judge.name == "toy:len>3" and not judge.batches
    # the base's judge_batch loops over `judge` (a judge that batches better overrides it)
    q = _question()
    results = judge.judge_batch([(q, "long answer", []), (q, "no", [])])
    assert [r.verdicts[0].present for r in results] == [True, False]


def test_a_registered_judge_is_validated_like_the_builtin_ones(length_judge):
    from evaluation.judges.gold import GoldAnswer

    q = _question()
    items = [
        GoldAnswer(
            answer_id=f"a{i}", question=q, style="s", answer=text, present={"path_0": ok}, line=i
        )
        for i, (text, ok) in enumerate([("a long answer", True), ("no", False)])
    ]
    decisions, errors = decide(registry.make("length", {}), items)
    assert not errors and [d.judge["path_0"] for d in decisions] == [True, False]


def test_unknown_judge_names_are_refused_by_the_spec():
    with pytest.raises(ValueError, match="unknown judge 'nope': edge-evidence, embedding, llm"):
        RunSpec(judge="nope")
