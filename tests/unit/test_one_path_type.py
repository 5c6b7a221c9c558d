"""One path type: every place that holds reasoning paths uses a view of `ReasoningPath`, so a
path read from a file, from the graph, from a question or for judging has the same signature,
hop count and edges."""

from __future__ import annotations

import pytest

from evaluation.models import EvalPath
from kg.paths import ParsedPath, ReasoningPath, parse_path
from kg.queries.models import GraphPath
from kg.queries.questions import QuestionPath

TEXT = "topic_3 -- CAUSES --> topic_13 -- ENABLES --> topic_2"
KEYS, LABELS = ["topic_3", "topic_13", "topic_2"], ["CAUSES", "ENABLES"]


def _views() -> list[ReasoningPath]:
    return [
        parse_path(TEXT),
        GraphPath(keys=KEYS, labels=LABELS, reasons=["r1", "r2"], edge_uids=["e1", "e2"]),
        QuestionPath(role="target", name="path_1", pos=1, keys=KEYS, labels=LABELS, hops=2),
        # Stored Path nodes call the keys `concept_keys` and store their hop count.
        EvalPath(uid="p1", concept_keys=KEYS, labels=LABELS, target=True, hops=2),
    ]


@pytest.mark.parametrize("path", _views(), ids=lambda p: type(p).__name__)
def test_every_view_is_the_one_path_type(path: ReasoningPath) -> None:
    assert isinstance(path, ReasoningPath)
    assert path.signature == TEXT and path.hops == 2
    assert path.edges() == [("topic_3", "CAUSES", "topic_13"), ("topic_13", "ENABLES", "topic_2")]
    assert path.reason_keys() == ["3_reason_13", "13_reason_2"]
    dumped = path.model_dump()
    assert dumped["signature"] == TEXT and dumped["hops"] == 2  # computed, never stored twice


def test_parsed_path_is_an_immutable_value() -> None:
    a, b = parse_path(TEXT), parse_path(TEXT)
    assert isinstance(a, ParsedPath) and a == b and hash(a) == hash(b)
    assert a.keys == tuple(KEYS)
    with pytest.raises(Exception, match="frozen"):
        a.labels = ("X", "Y")  # type: ignore[misc]


def test_a_stored_hop_count_that_disagrees_is_kept_for_the_check() -> None:
    # `evaluation.runs.questions.load_questions` refuses such a path with the question named.
    p = EvalPath(uid="p1", concept_keys=["a", "b"], labels=["X"], target=True, hops=2)
    assert p.hops == 1 and p.stored_hops == 2
    assert "stored_hops" not in p.model_dump()
