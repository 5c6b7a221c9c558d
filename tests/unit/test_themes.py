"""Themes normalised and mapped to a domain's palette categories (issue 27)."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from kg.palette import load_palette
from kg.themes import GENERIC, OTHER, ThemeMap, category_label, normalise


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Political_Cause", "political cause"),
        ("POLITICAL CAUSE", "political cause"),
        ("Political Cause", "political cause"),
        ("PoliticalCause", "political cause"),
        ("Causal/Functional", "causal functional"),
        ("  IS_A_TYPE_OF ", "is a type of"),
        (None, ""),
    ],
)
def test_normalise_folds_case_and_separators(raw, expected):
    assert normalise(raw) == expected


def test_a_theme_that_is_a_label_takes_the_label_category():
    m = ThemeMap({"comparative": ["CONTRASTS_WITH"], "causal": ["CAUSES"]})
    t = m.categorize("contrasts with")
    assert (t.category, t.how) == ("comparative", "label")


def test_synonyms_and_stems_meet_the_category_words():
    m = ThemeMap(
        {
            "causal_and_consequential_relations": ["IS_A_POLITICAL_CAUSE_OF"],
            "narrative_and_comparative_relations": ["PRECEDES", "IS_AN_EXAMPLE_OF"],
        }
    )
    for raw in ("Political_Causality", "CAUSAL", "Economic_Cause"):
        assert m.categorize(raw).category == "causal_and_consequential_relations", raw
    for raw in ("Temporal", "Exemplification", "Sequential"):
        assert m.categorize(raw).category == "narrative_and_comparative_relations", raw


def test_the_target_paths_decide_a_theme_its_words_do_not():
    m = ThemeMap({"flow": ["DRAINS_INTO"], "structure": ["IS_PART_OF"]})
    t = m.categorize("Holistic view", ["DRAINS_INTO", "DRAINS_INTO", "IS_PART_OF"])
    assert (t.category, t.how) == ("flow", "target paths")
    assert m.categorize("Holistic view").category == OTHER


def test_a_domain_without_palette_uses_the_generic_categories():
    m = ThemeMap(None)
    assert m.generic and m.categorize("Causal").category in GENERIC
    assert category_label("causal_and_consequential_relations") == "Causal and consequential"


def test_the_published_sample_has_at_most_twelve_categories_per_domain(shared_data):
    """The sample's raw themes (76 strings) mapped with each domain's published palette."""
    data = shared_data / "perspectivebench"
    palettes = {
        "physics": data / "raw" / "pyhsic_init_palette.json",
        "biology": data / "raw" / "biology_init_palette.json",
        "world_history": data / "raw" / "history_init_palette.json",
    }
    maps = {d: ThemeMap(_categories(p)) for d, p in palettes.items()}
    raw: set[str] = set()
    cats: dict[str, set[str]] = defaultdict(set)
    for line in (data / "sample.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        raw.add(q["perspective_theme"])
        labels = [
            label
            for p in q["perspective_valid_paths"]
            for k, sig in p.items()
            if k.startswith("path_")
            for label in re.findall(r"-- (\S+) -->", sig)
        ]
        t = maps[q["domain"]].categorize(q["perspective_theme"], labels)
        assert t.raw == q["perspective_theme"]
        cats[q["domain"]].add(t.category)
    assert len(raw) > 60
    for domain, found in cats.items():
        assert 1 <= len(found) <= 12, (domain, found)
        assert OTHER not in found, domain


def _categories(path):
    palette = load_palette(path)
    out: dict[str, list[str]] = defaultdict(list)
    for label, cat in palette.category_map().items():
        out[cat].append(label)
    return out
