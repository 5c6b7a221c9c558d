"""Strict path parsing and reason keys of the PerspectiveBench format."""

from __future__ import annotations

import pytest

from kg.paths import (
    PathSyntaxError,
    base_key,
    format_signature,
    parse_path,
    reason_keys,
)


def test_one_hop_path():
    p = parse_path("topic_3 -- CAUSES --> topic_13")
    assert p.keys == ("topic_3", "topic_13")
    assert p.labels == ("CAUSES",)
    assert p.hops == 1
    assert p.signature == "topic_3 -- CAUSES --> topic_13"
    assert p.reason_keys() == ["reason"]


def test_three_hop_path_and_reason_keys():
    text = "topic_17 -- A_B --> topic_2 -- C --> topic_12 -- D9 --> topic_6"
    p = parse_path(text)
    assert p.hops == 3
    assert p.keys == ("topic_17", "topic_2", "topic_12", "topic_6")
    assert p.reason_keys() == ["17_reason_2", "2_reason_12", "12_reason_6"]
    assert format_signature(p.keys, p.labels) == text


def test_none_label_is_syntactically_valid():
    assert parse_path("topic_1 -- None --> topic_24").labels == ("None",)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("topic_1 -> topic_2", "no '-->' arrow"),
        ("topic_1 --  --> topic_2", "empty relation label"),
        ("topic_1 -- CAUSES]->(x) DETACH DELETE x // --> topic_2", "invalid relation label"),
        ("a -- A --> b -- B --> c -- C --> d -- D --> e", "4 hops"),
        ("topic_1 -- 9X --> topic_2", "invalid relation label"),
        ("topic 1 -- X --> topic_2", "invalid concept key"),
        ("topic_1 --X--> topic_2", "bad path syntax"),
        ("topic_1 -- X --> topic_2 -- Y --> topic_1", "visits a concept twice"),
        ("", "empty path"),
    ],
)
def test_bad_paths_are_rejected_with_a_reason(text, needle):
    with pytest.raises(PathSyntaxError, match=None) as exc:
        parse_path(text)
    assert needle in str(exc.value)


def test_pool_suffixes_name_the_same_concept():
    assert base_key("topic_3_source") == "topic_3"
    assert base_key("topic_13_target") == "topic_13"
    assert base_key("topic_3") == "topic_3"
    assert base_key("source_node") == "source_node"


def test_reason_keys_for_non_topic_keys_use_the_whole_key():
    assert reason_keys(["pump", "valve", "topic_4"]) == ["pump_reason_valve", "valve_reason_4"]
