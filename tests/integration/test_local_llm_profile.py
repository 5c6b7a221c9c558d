"""Issue 13 against the real local model (SmolLM2-135M): sampled answers with real token
logprobs, a context perturbation, a hint formulation and a decoder grid point on two
questions, then `kg eval profile`. Exact values are the scripted server's job
(test_eval_samples/contexts/profile); here: every variant is asked for real, stored, and
profiled, and the confidences come from the model's own logprobs."""

from __future__ import annotations

import pytest

from evaluation.profiles.report import build_profile
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec
from evaluation.scoring.question_scores import run_scores
from kg.llm import LLMConfig

pytestmark = [pytest.mark.integration, pytest.mark.local_llm]


def test_profile_of_the_local_model(bench, local_llm, tmp_path):
    cfg = LLMConfig(
        model="local/smollm2-135m",
        role="responder",
        max_tokens=48,
        temperature=0.8,
        cache=False,
        concurrency=1,
    )
    spec = RunSpec(
        kind="eval",
        run_id="local-profile",
        responder="llm",
        responder_llm=cfg,
        judge="edge-evidence",
        domains=["physics"],
        limit=2,
        samples=2,
        contexts=1,
        formulations=["original", "hint"],
        decoders=[{"temperature": 0.2}],
        subset_percent=50,
    )
    summary = execute(bench, spec)
    # 2 questions x (original, c1, hint) x 2 samples + 1 subset question x d1 x 2 samples
    assert summary.completed + summary.failed == 14, summary.errors
    assert summary.status == "done", summary.errors
    _, every = run_scores(bench, "local-profile", all_samples=True)
    assert len(every) == 14
    assert all(s.confidence is not None and s.confidence < 0 for s in every)  # real logprobs
    assert {s.formulation for s in every} == {None, "hint"}
    assert {s.context for s in every} == {None, "c1"}
    assert sum(s.decoder_point == "d1" for s in every) == 2

    rep = build_profile(bench, "local-profile", tmp_path, ["md"], True, top_k_percent=50)
    names = set(rep.tables)
    assert {
        "local-profile_frs",
        "local-profile_c3",
        "local-profile_formulations",
        "local-profile_decoders",
    } <= names
    frs = {r["aggregation"]: r for r in rep.tables["local-profile_frs"].rows}
    assert frs["top-50%"]["flag"] == ""  # confidence available: nothing fell back
    assert (tmp_path / "pas_by_formulation.png").stat().st_size > 0
