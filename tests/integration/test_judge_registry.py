"""A judge added in one place: a toy judge registered by name with its options model runs
through the runner on a real graph, as `kg eval run --judge NAME` would run it."""

from __future__ import annotations

import pytest

from evaluation.judges import registry
from evaluation.judges.base import Judge
from evaluation.judges.registry import JudgeOptions
from evaluation.models import EvalQuestion, Fact, JudgeResult, PathVerdict
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.scoring.question_scores import run_scores
from kg.llm import LLMClient

pytestmark = pytest.mark.integration


class KeywordOptions(JudgeOptions):
    word: str = "because"


class KeywordJudge(Judge):
    """Every path is present when the answer holds `word` (a toy: no model, no encoder)."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.name = f"toy:keyword({word})"

    async def judge(self, q: EvalQuestion, answer: str, gt: list[Fact]) -> JudgeResult:
        hit = self.word in answer.lower()
        return JudgeResult(
            verdicts=[PathVerdict(path_uid=p.uid, present=hit, partial=float(hit)) for p in q.paths]
        )


@pytest.fixture
def keyword_judge():
    @registry.register("keyword", KeywordOptions)
    def _make(opts: KeywordOptions, client: LLMClient | None) -> Judge:
        return KeywordJudge(opts.word)

    yield
    registry.unregister("keyword")


def test_a_registered_toy_judge_runs_through_the_runner(bench, keyword_judge):
    assert registry.is_offline("keyword") and registry.spec_name("keyword") == "keyword"
    spec = RunSpec(responder="cover-all", judge="keyword", limit=2, run_id="toy-judge")
    summary = execute(bench, spec)
    assert summary.status == "done" and summary.completed == 2
    run, scores = run_scores(bench, "toy-judge")
    assert run.judge == "toy:keyword(because)"
    # cover-all states every path with its reasons; the toy finds its word or not, and the
    # scores follow from its verdicts: all paths present (recall 1) or none (recall 0)
    assert len(scores) == 2 and all(s.recall in (0.0, 1.0) for s in scores)
    assert all(len(set(s.present.values())) == 1 for s in scores)
    # the registered name is what the run spec accepts; an unregistered one is refused
    registry.unregister("keyword")
    with pytest.raises(ValueError, match="unknown judge 'keyword'"):
        RunSpec(judge="keyword")
