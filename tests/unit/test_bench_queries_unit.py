"""Pure helpers of the graph queries: palettes, Lucene escaping, stats totals, uids."""

from __future__ import annotations

import json

import pytest

from kg import ids
from kg.palette import PaletteError, parse_palette
from kg.queries.concepts import lucene_escape
from kg.queries.stats import StatsRow, _total


def test_category_map_reads_the_published_format(shared_data):
    doc = json.loads(
        (shared_data / "perspectivebench" / "raw" / "pyhsic_init_palette.json").read_text(
            encoding="utf-8"
        )
    )
    m = parse_palette(doc).category_map()
    assert m["CAUSES"] == "causal_relations"
    assert m["PRECEDES"] == "temporal_procedural_relations"
    assert parse_palette(doc["relation_palette_hypothesis"]).category_map() == m
    assert parse_palette(json.dumps(doc)).category_map() == m


@pytest.mark.parametrize("junk", [[1, 2], {"c": {"relations": [{"name": 3}, "x"]}}, "{nope"])
def test_junk_palette_is_an_error(junk):
    # One parser for build, import and queries: junk is never silently read as "no palette".
    with pytest.raises(PaletteError, match="p.json"):
        parse_palette(junk, "p.json")


def test_lucene_special_characters_are_escaped():
    assert lucene_escape('nuclear (force) AND "x"') == 'nuclear \\(force\\) AND \\"x\\"'
    assert lucene_escape("a:b/c") == "a\\:b\\/c"


def test_totals_are_question_weighted():
    def row(hop, n, p):
        return StatsRow(
            domain="d",
            hop=hop,
            questions=n,
            mean_valid=2,
            mean_targets=1,
            mean_distractors=1,
            cover_all_precision=p,
            cover_all_recall=1,
            cover_all_pas=2 * p / (1 + p),
        )

    total = _total("d", [row(1, 1, 0.5), row(2, 3, 0.25)])
    assert total.questions == 4 and total.hop == "ALL"
    assert abs(total.cover_all_precision - (0.5 + 3 * 0.25) / 4) < 1e-12


def test_uids_are_stable_content_hashes():
    assert ids.concept_uid("physics", "topic_3") == ids.concept_uid("physics", "topic_3")
    assert ids.concept_uid("physics", "topic_3") != ids.concept_uid("biology", "topic_3")
    assert len(ids.question_uid("physics", 0)) == 24
    assert ids.question_uid("physics", 0) != ids.question_uid("physics", 1)
