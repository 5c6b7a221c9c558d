"""Unit tests of the offline text heuristics and the question checks."""

from __future__ import annotations

import pytest

from construction.pipeline import text_units as tu
from construction.pipeline.facts import FactItem, FactsReply, offline_facts, validate_reply
from construction.pipeline.llm_route import RejectedReply
from construction.pipeline.question_text import (
    family_of,
    label_words_in,
    offline_question,
    question_problem,
)

CHUNK = (
    "Pumps lift treated water to the water towers. It is stored there overnight. "
    "The water towers create the pressure in the distribution network. This is why "
    "the water towers stand on high ground. e.g. short. Pressure in the distribution "
    "network falls when many households use water at the same time. The pipes of the "
    "distribution network carry treated water to every home and"
)


def test_sentences_protect_abbreviations():
    parts = tu.sentences("Filters, e.g. sand beds, trap grit. Chlorine kills microbes.")
    assert parts == ["Filters, e.g. sand beds, trap grit.", "Chlorine kills microbes."]


def test_bare_pronouns_are_detected_but_named_referents_are_not():
    assert tu.bare_pronoun("It is stored there overnight.") == "It"
    assert tu.bare_pronoun("This is why the towers stand high.") == "This"
    assert tu.bare_pronoun("This force pushes the cart.") is None
    assert tu.bare_pronoun("Pumps lift water.") is None


def test_offline_facts_drop_pronoun_sentences_and_fragments_and_keep_order():
    sents = tu.sentences(CHUNK)
    df = tu.phrase_frequencies(sents * 2)
    facts, dropped = offline_facts(CHUNK, df, len(sents) * 10, 3, 7, 4)
    texts = [t for t, _ in facts]
    assert len(facts) >= 3
    # unresolvable pronoun subjects and the sentence cut at the chunk edge are dropped
    assert not any(t.startswith(("It ", "This is")) for t in texts)
    assert all(t.endswith(".") for t in texts)
    assert sum(dropped.values()) >= 3 and dropped["bare_pronoun"] >= 1
    assert all(ents for _, ents in facts)
    positions = [CHUNK.index(t) for t in texts]
    assert positions == sorted(positions)


def test_key_entities_prefer_longer_recurring_phrases():
    sents = [
        "The distribution network carries water.",
        "Leaks waste water in the distribution network.",
        "The distribution network has valves.",
    ]
    df = tu.phrase_frequencies(sents)
    ents = tu.key_entities(sents[0], df, 30, 3)
    assert ents[0] == "distribution network"
    assert "distribution" not in ents  # no overlapping fragments


def test_llm_fact_replies_are_validated():
    good = FactsReply(facts=[FactItem(sentence="Alum  forms floc.", entities=["alum", " "])])
    assert validate_reply(good, 7) == [("Alum forms floc.", ["alum"])]
    too_many = FactsReply(facts=[FactItem(sentence=f"F{i}.", entities=["e"]) for i in range(9)])
    with pytest.raises(RejectedReply) as err:
        validate_reply(too_many, 7)
    assert err.value.reason == "too_many_facts"
    empty_ents = FactsReply(facts=[FactItem(sentence="A fact.", entities=[" "])])
    with pytest.raises(RejectedReply, match="missing_field"):
        validate_reply(empty_ents, 7)


def test_label_words_and_synonyms_are_found():
    labels = ["CAUSES", "IS_A_TYPE_OF", "PRECEDES", "CONTRASTS_WITH"]
    assert label_words_in("What causes the flood?", labels) == ["causes"]
    assert label_words_in("Which kind of pump is it?", labels) == ["kind"]
    assert label_words_in("What happens before settling?", labels) == ["before"]
    assert label_words_in("How do they differ?", labels) == ["differ"]
    assert label_words_in("Describe the route of the water.", labels) == []


def test_question_problems():
    names = ["Oakmere Reservoir", "Kell Treatment Plant"]
    labels = ["SUPPLIES"]
    assert question_problem("How does topic_3 reach the plant?", names, labels) == (
        "names_concept_id"
    )
    assert question_problem("What supplies the Kell Treatment Plant?", names, labels) == (
        "names_relation_label"
    )
    assert question_problem("Describe the route of the water.", names, labels) == "not_anchored"
    assert question_problem("Describe the route from Oakmere Reservoir.", names, labels) is None
    # a concept name may contain a label word: names are not hints
    assert question_problem("Describe Supplies Depot today.", ["Supplies Depot"], labels) is None


def test_offline_question_uses_the_focus_family_and_passes_the_checks():
    names = ["Tessel River", "Oakmere Reservoir"]
    labels = ["CAUSES", "SUPPLIES", "PRECEDES"]
    q = offline_question(names, ["causal_relations"], "Causal", labels)
    assert q and question_problem(q, names, labels) is None
    assert all(n in q for n in names)
    q2 = offline_question(names, ["causal_relations"], "Causal", labels, variant=1)
    assert q2 and q2 != q
    chain = offline_question(["A Pump", "B Tank", "C Pipe"], ["flow_relations"], "Flow", labels)
    assert chain and all(n in chain for n in ["A Pump", "B Tank", "C Pipe"])
    assert "focusing on" in chain or "attention to" in chain
    assert family_of("comparative_and_taxonomic_relations") == "comparison"
    assert family_of("zzz") is None
    # every template of the family names a forbidden word -> no question rather than a leak
    assert offline_question(names, ["zzz"], "Causes", ["CAUSES"]) is None
