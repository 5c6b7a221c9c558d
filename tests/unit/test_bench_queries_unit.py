"""Pure helpers of the graph queries: palettes, Lucene escaping, stats totals, uids."""

from __future__ import annotations

import json

from kg import ids
from kg.queries.concepts import lucene_escape
from kg.queries.perspectives import palette_map
from kg.queries.stats import StatsRow, _total


def test_palette_map_reads_the_published_format(shared_data):
    doc = json.loads((shared_data / "perspectivebench" / "raw" / "pyhsic_init_palette.json")
                     .read_text(encoding="utf-8"))
    m = palette_map(doc)
    assert m["CAUSES"] == "causal_relations"
    assert m["PRECEDES"] == "temporal_procedural_relations"
    assert palette_map(doc["relation_palette_hypothesis"]) == m
    assert palette_map(json.dumps(doc)) == m


def test_palette_map_ignores_junk():
    assert palette_map([1, 2]) == {}
    assert palette_map({"c": {"relations": [{"name": 3}, "x", {"name": "OK"}]}}) == {"OK": "c"}


def test_lucene_special_characters_are_escaped():
    assert lucene_escape('nuclear (force) AND "x"') == 'nuclear \\(force\\) AND \\"x\\"'
    assert lucene_escape("a:b/c") == "a\\:b\\/c"


def test_totals_are_question_weighted():
    def row(hop, n, p):
        return StatsRow(domain="d", hop=hop, questions=n, mean_valid=2, mean_targets=1,
                        mean_distractors=1, cover_all_precision=p, cover_all_recall=1,
                        cover_all_pas=2 * p / (1 + p))

    total = _total("d", [row(1, 1, 0.5), row(2, 3, 0.25)])
    assert total.questions == 4 and total.hop == "ALL"
    assert abs(total.cover_all_precision - (0.5 + 3 * 0.25) / 4) < 1e-12


def test_uids_are_stable_content_hashes():
    assert ids.concept_uid("physics", "topic_3") == ids.concept_uid("physics", "topic_3")
    assert ids.concept_uid("physics", "topic_3") != ids.concept_uid("biology", "topic_3")
    assert len(ids.question_uid("physics", 0)) == 24
    assert ids.question_uid("physics", 0) != ids.question_uid("physics", 1)
