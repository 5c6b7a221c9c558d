"""Scripted replies of the builder model for every model-backed build stage (the test
server's rules: tests/llm_server.py), shared by the LLM-route and batch-mode build tests."""

from __future__ import annotations

import re

from construction.pipeline import text_units as tu

# The marker of each model stage's prompt (tests/integration/test_build_plan.py counts the
# requests per stage with them).
BUILD_MARKERS = {
    "facts": "Extract single-fact sentences",
    "concepts": "Name the shared explanatory focus",
    "relations": "Find every explanatory relation",
    "questions": "Write one perspective-targeted question",
    "evidence": "Select the focused evidence",
}


def user_text(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def facts_reply(body):
    chunk = user_text(body).split('"""')[1]
    sents = [s for s in tu.sentences(chunk) if tu.is_complete(s)][:5]
    return {
        "facts": [
            {"sentence": s, "entities": tu.candidate_phrases(s, 2)[:3] or ["water"]} for s in sents
        ]
    }


def summary_reply(body):
    text = user_text(body)
    words = re.search(r"orientation\): (.*)", text).group(1).split(", ")
    first_fact = re.search(r"^- (.*)$", text, re.M).group(1)
    return {"name": " ".join(w.title() for w in words[:2]), "summary": first_fact}


def relations_reply(body):
    a, b = re.search(r"BOTH directions: (topic_\d+) -> (topic_\d+)", user_text(body)).groups()
    fact = re.findall(r"^  - (.*)$", user_text(body), re.M)[0]  # a key-evidence sentence
    return {
        "relations": [
            {"source": a, "target": b, "label": "SUPPLIES", "reason": f"{fact} So A feeds B."},
            {"source": a, "target": b, "label": "CAUSES", "reason": f"{fact}"},
            {"source": a, "target": b, "label": "IS_PART_OF", "reason": f"As stated: {fact}"},
            {"source": b, "target": a, "label": "PRECEDES", "reason": f"{fact} B comes first."},
            {"source": b, "target": a, "label": "CAUSES", "reason": "B changes A, trust me."},
            {"source": a, "target": "topic_999", "label": "CAUSES", "reason": "wrong endpoint"},
            {"source": a, "target": a, "label": "CAUSES", "reason": "self loop"},
            {
                "source": a,
                "target": b,
                "label": "INVENTS",
                "reason": f"{fact} (not in the palette)",
                "description": "A brings B into being.",
                "category": "causal_relations",
            },
            {"source": a, "target": b, "label": "supplies", "reason": "bad label"},
        ]
    }


def question_reply_factory():
    state = {"n": 0}

    def reply(body):
        state["n"] += 1
        names = re.findall(r"^- topic_\d+ = (.*?):", user_text(body), re.M)
        if state["n"] == 1:  # names a relation label: must be rejected
            return {"question": f"What causes {names[-1]}?", "theme": "Causal"}
        return {
            "question": f"How is {names[0]} connected to {names[-1]} through its mechanism?",
            "theme": "Mechanism",
        }

    return reply


def evidence_reply(body):
    facts = re.findall(r"^- (.*)$", user_text(body).split("Candidate facts")[1], re.M)
    return {"evidence": [facts[0], "A sentence that is in no chunk at all."]}


def add_build_model(server, question=None) -> None:
    """Rules answering every stage's prompt; `question` replaces the question reply (the
    default rejects the first question, as it names a relation label)."""
    replies = {
        "facts": facts_reply,
        "concepts": summary_reply,
        "relations": relations_reply,
        "questions": question or question_reply_factory(),
        "evidence": evidence_reply,
    }
    for stage, marker in BUILD_MARKERS.items():
        server.add_rule(match=marker, reply=replies[stage])
