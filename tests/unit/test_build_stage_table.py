"""The stage table: every entry is a `Stage` of its name whose inputs come before it; a stage
added to the table (one entry) is planned, its implementation chosen once, and run by the
runner's walk; no server needed (the toy stages read no graph)."""

from __future__ import annotations

from typing import ClassVar

import pytest

from construction.pipeline import STAGE_TABLE, STAGES
from construction.pipeline.config import BuildConfig
from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.llm_route import BuildLLM, make_build_llm
from construction.pipeline.runner import BuildPlan, plan_stages, walk
from construction.pipeline.stage import Stage, load_stage
from kg.llm import LLMConfig


class Toy(Stage):
    """Counts the configured domain's letters: offline as they are, with a model upper-cased
    (to tell the implementations apart)."""

    name = "toy"
    inputs: ClassVar[tuple[str, ...]] = ("evidence",)
    calls: ClassVar[list[str]] = []

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(self.name) as rep:
            Toy.calls.append("offline")
            rep.items = rep.written = len(ctx.domain)
            rep.counts["letters"] = sum(ch.isalpha() for ch in ctx.domain)
            return rep

    def llm(self, ctx: BuildContext, model: BuildLLM) -> StageReport:
        with ctx.stage(self.name) as rep:
            Toy.calls.append(f"llm {model.model}")
            rep.items = rep.written = len(ctx.domain)
            rep.note(ctx.domain.upper())
            return rep


class Unwanted(Toy):
    name = "unwanted"

    def wanted(self, ctx: BuildContext) -> bool:
        return False


@pytest.fixture
def toy_table(monkeypatch):
    """The toy stages registered the one way a stage is: an entry in the table."""
    monkeypatch.setitem(STAGE_TABLE, "toy", f"{__name__}:Toy")
    monkeypatch.setitem(STAGE_TABLE, "unwanted", f"{__name__}:Unwanted")
    Toy.calls.clear()
    return STAGE_TABLE


def _ctx(domain: str = "toy_domain") -> BuildContext:
    # The toy stages read no graph: the context's store is never used.
    return BuildContext(store=None, config=BuildConfig(domain=domain), palette=None, run_uid="r")  # type: ignore[arg-type]


def test_every_table_entry_is_a_stage_of_its_name_after_its_inputs():
    assert STAGES == tuple(STAGE_TABLE)
    for i, name in enumerate(STAGES):
        stage = load_stage(name)
        assert stage.name == name
        assert set(stage.inputs) <= set(STAGES[:i]), name
        # The stages with a prompt are the ones that ask a model per item.
        assert (stage.prompt is not None) == (
            name in {"facts", "concepts", "relations", "questions", "evidence"}
        ), name


def test_a_wrong_table_entry_is_refused(monkeypatch):
    monkeypatch.setitem(STAGE_TABLE, "toy", f"{__name__}:Unwanted")
    with pytest.raises(TypeError, match="'toy'"):
        load_stage("toy")


def test_a_registered_stage_is_planned_and_walked_offline(toy_table):
    plan = BuildPlan(config=BuildConfig(domain="toy_domain"), only=["toy", "unwanted"])
    planned = plan_stages(plan, llm=None)
    assert [p.stage.name for p in planned] == ["toy", "unwanted"]
    ctx = _ctx()
    result = walk(ctx, planned, allow_partial=False)
    assert result.stopped_after is None and result.failed_items == 0
    assert Toy.calls == ["offline"]  # `unwanted` had nothing to do: not run, no report
    assert list(ctx.reports) == ["toy"]
    assert ctx.reports["toy"].counts == {"letters": 9} and ctx.reports["toy"].written == 10


def test_the_llm_implementation_is_chosen_once_with_a_model(toy_table):
    llm = make_build_llm(config=LLMConfig(model="openai/toy-model", role="builder"))
    assert llm is not None
    plan = BuildPlan(config=BuildConfig(domain="toy_domain"), from_stage="evidence")
    planned = plan_stages(plan, llm)
    # from a stage on: that stage and every later one in table order, the toy included
    assert [p.stage.name for p in planned] == ["evidence", "toy", "unwanted"]
    ctx = _ctx()
    walk(ctx, planned[1:], allow_partial=False)
    assert Toy.calls == ["llm openai/toy-model"]
    assert ctx.reports["toy"].notes == ["TOY_DOMAIN"]


def test_stage_reports_are_typed_and_dump_like_the_stored_summary():
    rep = StageReport(stage="toy", seconds=1.23456, cpu_seconds=0.5)
    rep.reject("call_failed")
    body = rep.model_dump(mode="json")
    assert list(body) == [
        "stage",
        "items",
        "resumed",
        "written",
        "rejected",
        "skipped",
        "seconds",
        "cpu_seconds",
        "tokens_in",
        "tokens_out",
        "counts",
        "notes",
    ]
    assert body["seconds"] == 1.235 and body["counts"] == {"rejected_call_failed": 1}


def test_every_model_stage_gives_its_items_and_prompt_slots_to_the_plan():
    """A stage that names a prompt implements `pending_items` and `slots` (its `llm` asks with
    them and `kg build --plan` renders its prompts from them); one without asks nothing."""
    for name in STAGES:
        stage = load_stage(name)
        own = {
            m
            for m in ("pending_items", "slots")
            if getattr(type(stage), m) is not getattr(Stage, m)
        }
        assert own == ({"pending_items", "slots"} if stage.prompt else set()), name
