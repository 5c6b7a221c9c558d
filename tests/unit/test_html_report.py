"""The HTML report's pure parts: outcomes, judge validity, the data block, the page assembly."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from evaluation.reporting import CI, Table
from evaluation.reporting.html_report import (
    answer_payload,
    embed_json,
    failed_questions,
    judge_validity,
    outcome,
    render_html,
    table_payload,
)


@pytest.mark.parametrize(
    ("present", "expected"),
    [
        ({"t1": True, "d1": False}, "aligned"),
        ({"t1": True, "t2": True}, "aligned"),
        ({"t1": True, "d1": True}, "blended"),
        ({"t1": False, "d1": True}, "drifted"),
        ({"t1": False, "d1": False}, "|A|=0"),
        ({}, "|A|=0"),
    ],
)
def test_outcome(present, expected):
    assert outcome({"t1", "t2"}, present) == expected


def test_judge_validity_read_defensively():
    v = judge_validity({"judge": "j"})
    assert (v["judge"], v["kappa"], v["validated"], v["level"]) == ("j", None, False, "unvalidated")
    assert v["badge"] == "bad" and v["figures"] == [] and v["summary"] == "unvalidated"
    v = judge_validity(
        {
            "roles": {"judge": "llm:x"},
            "judge": "other",
            "judge_validity": {"kappa": 0.71, "n": 120, "reference": "human"},
        }
    )
    # a kappa of unknown answer kind is not a validation on natural answers: no green badge
    assert v["judge"] == "llm:x" and v["kappa"] == 0.71 and not v["validated"]
    assert v["badge"] == "warn" and "unvalidated on natural answers" in v["summary"]
    assert judge_validity({"judge_validity": json.dumps({"cohen_kappa": 0.5})})["kappa"] == 0.5
    assert judge_validity({"judge_validity": 0.4})["kappa"] == 0.4
    assert not judge_validity({"judge_validity": "not json"})["figures"]
    assert not judge_validity({"judge_validity": {"kappa": "high"}})["figures"]


def test_table_payload_uses_the_markdown_formatting():
    ci = CI(mean=66.6667, low=50.0, high=80.0, n=3)
    t = Table(title="T", columns=["hop", "n", "PAS"], rows=[{"hop": "2-hop", "n": 3, "PAS": ci}])
    p = table_payload("x", t, "g", "hop")
    assert p["rows"] == [["2-hop", "3", "66.67 [50.00, 80.00]"]]
    assert p["rows"][0][2] == t.cell(t.rows[0], "PAS")
    assert p["values"] == [["2-hop", 3, 66.6667]]


def test_failed_questions_from_run_errors():
    run = {"errors": ["question d#3 (uid abc123): LLMCallError: boom", "run stopped", 7]}
    assert failed_questions(run) == {"abc123": "question d#3 (uid abc123): LLMCallError: boom"}


def test_answer_payload_keeps_first_verdict_and_orders_claims():
    row = {
        "text": "One. Two!\nThree",
        "verdicts": [
            {
                "path": "p",
                "present": True,
                "partial": 1.0,
                "edges_present": [True],
                "edge_sentences": [1],
                "reason": "r",
            },
            {"path": "p", "present": False, "partial": 0.0},
            {"path": None, "present": True},
        ],
        "claims": [
            {"pos": 1, "text": "b", "supported": False},
            {"pos": 0, "text": "a", "supported": True, "supporting": "s"},
        ],
    }
    p = answer_payload(row)
    assert p["sentences"] == ["One.", "Two!", "Three"]
    assert p["verdicts"] == [
        {"path": "p", "present": True, "partial": 1.0, "edges": [True], "spans": [1], "reason": "r"}
    ]
    assert [c["text"] for c in p["claims"]] == ["a", "b"]


def test_embedded_json_cannot_close_its_script_element():
    hostile = {"answer": "</script><script>alert(1)</script><!-- & {{JS}}"}
    text = embed_json(hostile)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == hostile


def test_render_html_inlines_everything_under_a_hash_csp():
    payload = {"meta": {"kind": "eval"}, "note": "{{DATA}} {{JS}} </script>"}
    page = render_html(payload, title="<b>runs</b> & co")
    assert "<title>&lt;b&gt;runs&lt;/b&gt; &amp; co</title>" in page
    assert "{{" not in page.replace(embed_json(payload), "")  # every placeholder filled once
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"(https?:)?//", page)
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page
    data = re.search(
        r'<script type="application/json" id="kg-data">(.*?)</script>', page, flags=re.DOTALL
    ).group(1)
    assert json.loads(data) == payload


def test_embedding_judge_reports_the_sentence_matched_per_edge():
    from evaluation.judges.embedding import EmbeddingJudge
    from evaluation.models import EvalPath, EvalQuestion
    from evaluation.runs.store import batch_rows

    path = EvalPath(
        uid="p",
        signature="a -- FEEDS --> b -- FILLS --> c",
        hops=2,
        labels=["FEEDS", "FILLS"],
        concept_keys=["a", "b", "c"],
        target=True,
        reasons=["The pump feeds the channel.", "The channel fills the reservoir."],
    )
    q = EvalQuestion(
        uid="q", id=1, domain="d", text="How is the reservoir filled?", hop=2, paths=[path]
    )
    answer = "The channel fills the reservoir. Weather is mild today. The pump feeds the channel."
    result = EmbeddingJudge().judge_sync(q, answer, [])
    v = result.verdicts[0]
    assert v.present and v.edge_sentences == [2, 0]  # indices into split_sentences(answer)
    assert EmbeddingJudge().judge_sync(q, "", []).verdicts[0].edge_sentences == []

    from evaluation.models import QuestionResult

    rows = batch_rows(
        "r", "j", [QuestionResult(question=q, answer_uid="a", answer=None, judged=result)]
    )
    assert rows["verdicts"][0]["edge_sentences"] == [2, 0]


def test_stored_validation_wins_over_the_run_record():
    """`kg judge validate` results (JudgeValidation nodes) are what the page shows, rounded,
    with the kind of answers they were measured on."""
    stored = {
        "judge": "edge-evidence",
        "kappa": 0.7712345,
        "kappa_low": 0.67,
        "kappa_high": 0.87,
        "agreement": 91.8918918918919,
        "gold_file": "/x/gold.jsonl",
        "gold_hash": "ab" * 32,
        "summary": json.dumps({"by_style": [{"group": "aligned"}, {"group": "drifted"}]}),
    }
    v = judge_validity({"judge": "edge-evidence", "judge_validity": 0.1}, stored)
    assert v["kappa"] == 0.77 and v["level"] == "constructed-only" and not v["validated"]
    assert v["figures"][0]["kind"] == "constructed"
    assert "kappa 0.77 [0.67, 0.87] on constructed answers" in v["figures"][0]["text"]
    assert "gold.jsonl, sha256 abababababab" in v["figures"][0]["text"]
    assert "91.89" not in json.dumps(v)  # figures at the precision they carry
    assert not judge_validity({"judge": "edge-evidence"}, None)["validated"]
