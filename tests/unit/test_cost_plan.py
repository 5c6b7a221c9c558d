"""The cost plan's parts that need no graph: which role asks a variant, the budget refusal."""

from __future__ import annotations

import pytest

from evaluation.models import AnswerVariant
from evaluation.runs.cost_plan import CostPlan, RoleEstimate, check_budget, variant_role
from evaluation.runs.spec import RunSpec
from kg.llm import LLMConfig
from kg.llm.plan import OverBudget


def test_each_variant_is_asked_by_its_role() -> None:
    assert variant_role(AnswerVariant()) == "responder"
    assert variant_role(AnswerVariant(sample=2)) == "samples"
    assert variant_role(AnswerVariant(context="c1")) == "contexts"
    assert variant_role(AnswerVariant(formulation="neutral-1")) == "formulations"
    assert variant_role(AnswerVariant(decoder_point="d1")) == "decoders"


def _plan(cost: float | None) -> CostPlan:
    roles = [RoleEstimate(role="responder", model="m", calls=4, prompt_tokens=10, cost=cost)]
    return CostPlan(run_id="r", questions=2, answers=4, done_before=0, roles=roles, cost=cost)


def _spec(max_cost: float | None) -> RunSpec:
    cfg = LLMConfig(model="m", base_url="http://127.0.0.1:9/v1", max_cost=max_cost)
    return RunSpec(responder_llm=cfg)


def test_a_plan_over_the_limit_is_refused_naming_estimate_and_limit() -> None:
    with pytest.raises(OverBudget) as err:
        check_budget(_plan(2.5), _spec(1.0))
    assert "$2.5000" in str(err.value) and "--max-cost $1.0000" in str(err.value)
    check_budget(_plan(0.5), _spec(1.0))  # under the limit
    check_budget(_plan(2.5), _spec(None))  # no limit
    check_budget(_plan(None), _spec(1.0))  # no price: nothing to compare


def test_the_summary_line_says_calls_cost_and_time() -> None:
    line = _plan(0.25).line()
    assert "4 answer(s) of 2 question(s)" in line and "4 model call(s)" in line
    assert "$0.25" in line
    assert "cost unknown" in _plan(None).line()


def test_estimated_calls_are_marked_in_the_line_and_the_table() -> None:
    from construction.pipeline.cost_plan import BuildCostPlan

    exact = RoleEstimate(role="facts", model="m", calls=30, prompt_tokens=900)
    guess = RoleEstimate(
        role="concepts", model="m", calls=6, calls_source="estimated: 0.20 per chunk"
    )
    plan = BuildCostPlan(domain="d", model="m", chunks=30, new_chunks=30, roles=[exact])
    assert "calls counted" not in plan.table() and ", 30 model call(s)" in plan.line()
    plan.roles.append(guess)
    assert "| concepts | m | 6 |" in plan.table() and "estimated: 0.20 per chunk |" in plan.table()
    assert plan.line().startswith("plan: build of d (30 chunk(s), 30 new), ~36 model call(s)")
    offline = BuildCostPlan(domain="d", model="offline", chunks=30, new_chunks=0)
    assert "$0.00" in offline.line()


def test_build_estimates_scale_per_chunk_and_respect_the_question_budget() -> None:
    from construction.pipeline.cost_plan import DEMO_PER_CHUNK, Observed, _estimate

    none = Observed(label="any model")
    calls, _, how = _estimate("relations", 30, none, None, None)
    assert calls == round(DEMO_PER_CHUNK["relations"] * 30) and "offline demo build" in how
    seen = Observed(label="m", per_chunk={"questions": 0.3}, ratio_runs={"questions": 2})
    calls, _, how = _estimate("questions", 1000, seen, None, 50)
    assert calls == 50 and "2 earlier build(s) of m" in how and "--max-questions 50" in how
    assert _estimate("evidence", 1000, seen, 50, 50)[0] == 50  # one per question
    assert (
        _estimate(
            "relations",
            30,
            Observed(per_chunk={"relations": 9 / 30}, ratio_runs={"relations": 1}),
            None,
            None,
        )[0]
        == 9
    )
