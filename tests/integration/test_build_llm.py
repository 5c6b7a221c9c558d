"""The LLM route of every model-backed stage through the real client and the local
OpenAI-compatible test server: scripted replies, invalid ones rejected and counted, provenance
with model and prompt hash, and a rerun that calls the model only for unfinished items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import add_build_model, facts_reply

from construction.pipeline.config import BuildConfig
from construction.pipeline.llm_route import make_build_llm
from construction.pipeline.runner import BuildPlan, build_domain
from kg.prompt_files import load_prompt

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parents[2] / "demo" / "build"


@pytest.fixture
def scripted(llm_server):
    add_build_model(llm_server)
    return llm_server


def test_llm_build_rejects_invalid_replies_and_resumes(store, scripted):
    llm = make_build_llm(config=scripted.config(role="builder"))
    cfg = BuildConfig(domain="demo_llm")
    # one question reply is rejected: that item failed, so only --allow-partial goes on
    result = build_domain(
        store,
        BuildPlan(
            config=cfg,
            chunk_paths=[DEMO / "chunks.json"],
            palette_path=DEMO / "palette.json",
            allow_partial=True,
        ),
        llm=llm,
    )
    assert (result.status, result.failed_items, result.allow_partial) == ("done", 1, True)
    stages = {s.stage: s for s in result.stages}
    pairs = stages["relations"].items
    assert pairs > 0 and stages["facts"].rejected == 0
    rel = stages["relations"].counts
    assert rel == {
        "rejected_wrong_endpoints": pairs,
        "rejected_self_loop": pairs,
        "rejected_unknown_label": pairs,
        "rejected_bad_label": pairs,
        "rejected_ungrounded_reason": pairs,
    }
    assert stages["relations"].written == 4 * pairs
    # More perspectives than the question budget: the budget's worth are asked, the rest
    # counted (and, below, the rerun selects the same ones: it asks only the rejected one).
    counts = stages["questions"].counts
    assert counts.pop("over_question_budget") > 0
    assert counts == {"rejected_names_relation_label": 1}
    assert stages["questions"].items == cfg.max_questions
    answered = stages["questions"].written
    assert answered == stages["questions"].items - 1 > 0
    assert stages["evidence"].counts == {"rejected_evidence_not_a_fact": answered}
    assert result.summary["tokens_in"] > 0 and result.summary["tokens_out"] > 0

    edge = store.run_text("""MATCH (:Concept {domain: 'demo_llm'})-[r:RELATES]->()
                             RETURN r.provenance AS p LIMIT 1""")[0]
    prov = json.loads(edge["p"])
    assert prov["model"] == "test-model"
    assert prov["prompt_hash"] == load_prompt("pipeline/relations").hash
    names = store.run_text("MATCH (c:Concept {domain: 'demo_llm'}) RETURN c.name AS n")
    assert all(n["n"] for n in names)
    bad_evidence = store.run_text("""
        MATCH (q:Question {domain: 'demo_llm'})-[:EVIDENCE]->(f:Fact)
        WHERE NOT EXISTS { (q)-[:POOL]->(:Concept)<-[:IN_CONCEPT]-(f) } RETURN count(*) AS n""")
    assert bad_evidence[0]["n"] == 0

    # The rerun asks the model only for what is unfinished: the rejected question, and the
    # evidence of that question once it exists.
    calls = len(scripted.requests)
    again = build_domain(store, BuildPlan(config=cfg, chunk_paths=[DEMO / "chunks.json"]), llm=llm)
    new = scripted.requests[calls:]
    assert len(new) == 2
    assert "perspective-targeted question" in new[0].text
    assert "focused evidence" in new[1].text
    assert again.summary["questions"] == answered + 1

    # With --allow-new-relations the new label is kept and recorded with its description.
    allowing = BuildConfig(domain="demo_llm", allow_new_relations=True)
    third = build_domain(store, BuildPlan(config=allowing, from_stage="relations"), llm=llm)
    rel = next(s for s in third.stages if s.stage == "relations")
    assert "rejected_unknown_label" not in rel.counts
    assert rel.written == 5 * pairs
    new = json.loads(
        store.run_text("MATCH (d:Domain {name: 'demo_llm'}) RETURN d.new_relations AS n")[0]["n"]
    )
    assert new["INVENTS"]["description"] == "A brings B into being."
    cats = store.run_text("""MATCH (:Concept {domain: 'demo_llm'})-[r:RELATES {label: 'INVENTS'}]
                             ->() RETURN DISTINCT r.category AS c""")
    assert cats == [{"c": "causal_relations"}]


def test_invalid_fact_replies_are_rejected_and_retried_on_rerun(store, llm_server, tmp_path):
    chunks = json.loads((DEMO / "chunks.json").read_text())[:3]
    path = tmp_path / "three.json"
    path.write_text(json.dumps(chunks))
    # chunk 1: a reply without entities (the client asks once for a repair, then gives up)
    llm_server.add_rule(
        match="peat releases", reply={"facts": [{"sentence": "No entities."}]}, times=2
    )
    llm_server.add_rule(match="Extract single-fact sentences", reply=facts_reply)
    llm = make_build_llm(config=llm_server.config(role="builder"))
    cfg = BuildConfig(domain="demo_facts")
    result = build_domain(
        store, BuildPlan(config=cfg, chunk_paths=[path], only=["chunks", "facts"]), llm=llm
    )
    facts = next(s for s in result.stages if s.stage == "facts")
    assert facts.rejected == 1 and facts.counts == {"rejected_missing_field": 1}
    assert facts.written > 0
    calls = len(llm_server.requests)
    again = build_domain(
        store, BuildPlan(config=cfg, chunk_paths=[path], only=["chunks", "facts"]), llm=llm
    )
    facts = next(s for s in again.stages if s.stage == "facts")
    assert facts.resumed == 2 and facts.rejected == 0
    assert len(llm_server.requests) == calls + 1
