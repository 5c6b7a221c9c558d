"""Golden values: uids, default run ids and prompt hashes identify stored data.

A refactoring must never change them (a changed uid would MERGE a second node beside the one a
past import wrote; a changed run id would start a new run instead of resuming). The values were
computed once on the tree before the consolidation and are pinned here.
"""

from __future__ import annotations

from pathlib import Path

from construction.perspectra.expansion import PROMPT as EXPAND_PROMPT
from construction.pipeline.chunks import read_chunks
from construction.pipeline.llm_route import BuildLLM
from evaluation.models import GroundTruth, Setting, Strategy
from evaluation.perspectra.run_store import TaskRunSpec as PerspectraRunSpec
from evaluation.perspectra.scoring import task_prompt
from evaluation.responders.prompting import JUDGE_PROMPTS, prompt_hashes, responder_prompt_names
from evaluation.runs.spec import RunSpec
from kg.ids import (
    answer_uid,
    claim_uid,
    comment_uid,
    concept_uid,
    expansion_uid,
    fact_uid,
    fingerprint,
    opinion_uid,
    path_uid,
    question_uid,
    relates_uid,
    topic_uid,
    verdict_uid,
)
from kg.llm import LLMConfig
from kg.prompt_files import load_prompt
from kg.task_items import TaskItem, TaskSetSpec

DEMO_CHUNKS = Path(__file__).resolve().parents[2] / "demo" / "build" / "chunks.json"


def test_perspectivebench_uids():
    assert concept_uid("physics", "topic_3") == "f5428bff8cb6e9b856cf6868"
    assert fact_uid("physics", "Heat flows from hot to cold.") == "af37546a4170d5cb9f8429bd"
    assert path_uid("physics", "a -CAUSES-> b") == "440fab808829b352782ef745"
    assert question_uid("physics", 17) == "7dd3adb31532412c5e57af03"
    assert relates_uid("physics", "topic_1", "CAUSES", "topic_2") == "e2f625b29152a2bf95b2bd90"


def test_perspectra_uids():
    topic = "Should cities ban cars?"
    assert topic_uid(topic) == "8e7973fbb5c9a2f789a58299"
    assert opinion_uid(topic, "pro", "Cleaner air.") == "901bae7664b3c26363c6c156"
    assert comment_uid("I agree.") == "1906e70b07b0de84f6dadbd8"
    assert expansion_uid("op1", "Because...") == "1dc006bdad9c5a53570fb06b"
    assert TaskItem.make_uid("t1-s13-n5-x-y", 3) == "a270317ec2f9c6cddc0a3cc4"
    spec = TaskSetSpec(task="t2", n=5, seed=7)
    assert spec.task_set_id("0123456789abcdef") == "t2-s7-n5-368a8bcc-01234567"


def test_evaluation_uids():
    assert answer_uid("run-1", "q1") == "56ebede2f338f5da96c066f0"
    assert verdict_uid("run-1", "a1", "p1") == "fdd25a06da21a47e889062b8"
    assert claim_uid("run-1", "a1", 2) == "89720b3a3f00affa557a6d52"


def test_build_uids():
    assert fingerprint(["b", "a", "b"]) == "0473ef2dc0d324ab659d3580"
    uids = [c.uid for c in read_chunks([DEMO_CHUNKS], "demo")][:3]
    assert uids == [
        "24bc5fb4c84dbfe09f0e88fa",
        "6648b5557652c7874f5e107d",
        "7488ed2145daea87e101e677",
    ]


def _eval_run_id(spec: RunSpec) -> str:
    names = responder_prompt_names(spec.strategy) if spec.kind == "eval" else []
    return spec.default_run_id(prompt_hashes([*names, *JUDGE_PROMPTS]))


def test_default_run_ids():
    # The default judge became edge-evidence (issue 16): specs that name the old default keep
    # their ids; the new default has its own. Changed on purpose (issue 24): the ids below hash
    # the judge prompts, and the path checklist prompt now asks for the keyed JSON its schema
    # names.
    assert _eval_run_id(RunSpec(judge="embedding")) == "run-19f61c82b849"
    assert _eval_run_id(RunSpec()) == "run-185e03ae4ba6"
    responder = LLMConfig(
        model="openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1", role="responder"
    )
    assert (
        _eval_run_id(
            RunSpec(
                responder="llm",
                responder_llm=responder,
                judge="embedding",
                setting=Setting.noisy,
                strategy=Strategy.one_shot,
                domains=["physics"],
                hops=[2],
                limit=10,
            )
        )
        == "run-85be802b7a62"
    )
    judge = LLMConfig(model="openai/gpt-4o", role="judge")
    assert (
        _eval_run_id(
            RunSpec(
                kind="judge",
                source_run="run-abc",
                judge="llm",
                judge_llm=judge,
                gt=GroundTruth.full,
            )
        )
        == "judge-88d979a3f9fa"
    )
    perspectra = PerspectraRunSpec(
        task="t1",
        build="t1-b",
        model="m",
        strategy="llm",
        prompt_hash="abc",
        config={"temperature": 0},
    )
    assert perspectra.uid == "963793a9d7c05096ae52d8c1"


def test_prompt_hashes():
    build = {
        name: BuildLLM.prompt_hash(name)
        for name in ("evidence", "facts", "question", "relations", "summary")
    }
    assert build == {
        "evidence": "cd304969b713",
        "facts": "cb2ba3035c01",
        "question": "27dd5463504a",
        # changed on purpose: the relations prompt states the published rules (issue 12)
        "relations": "6bfa2b59eca2",
        "summary": "bbe93a6dcde9",
    }
    assert prompt_hashes([*responder_prompt_names(Strategy.negative), *JUDGE_PROMPTS]) == {
        "eval/answer_context": "d7de9ba7df83",
        "eval/answer_system": "87204a4d3283",
        "eval/answer_user": "07799d8f305f",
        "eval/judge_faithfulness": "8f9c2ffd3455",
        # changed on purpose: the keyed JSON reply the request's schema names (issue 24)
        "eval/judge_paths": "6ec61ba6eca2",
        "eval/judge_relevancy": "a434388e26c6",
        "eval/strategy_negative": "9162b8be9a0e",
        "llm/repair": "95b2ab9c6c96",
    }
    assert (
        prompt_hashes(responder_prompt_names(Strategy.one_shot))["eval/strategy_one_shot"]
        == "648dfaa4a7f0"
    )
    assert load_prompt(EXPAND_PROMPT).hash == "cfbe38276e20"
    assert {t: task_prompt(t).hash for t in ("t1", "t2", "t3")} == {
        "t1": "8a0a1ddc1975",
        "t2": "4cfcd849e75d",
        "t3": "8e00cd378441",
    }
