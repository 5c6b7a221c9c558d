"""The cost plan's parts that need no graph: which role asks a variant, the budget refusal."""

from __future__ import annotations

import pytest

from evaluation.models import AnswerVariant
from evaluation.runs.cost_plan import CostPlan, OverBudget, RoleEstimate, check_budget, variant_role
from evaluation.runs.spec import RunSpec
from kg.llm import LLMConfig


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
