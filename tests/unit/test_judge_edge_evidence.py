"""The edge-evidence judge on small hand-made questions: concept recognition, relation families,
direction, negation, qualifiers, palette descriptions and the all-edges rule."""

from __future__ import annotations

import pytest

from evaluation.judges.concepts import ConceptInfo, build_profiles
from evaluation.judges.edge_evidence import EdgeEvidenceJudge, concept_infos
from evaluation.judges.relations import family_of, relation_for, relation_meanings
from evaluation.models import EvalPath, EvalQuestion

CONCEPTS = {
    "rain": ("Heavy rain is a long fall of water from storm clouds.", ["rain", "storm", "clouds"]),
    "flood": (
        "A flood covers normally dry land with water from rivers.",
        ["flood", "river", "overflow"],
    ),
    "drought": (
        "A drought is a long period without rainfall that dries the soil.",
        ["drought", "dry", "soil"],
    ),
}


def question(
    *signatures: str,
    text: str = "How are rain, floods and droughts related?",
    meanings: dict[str, str] | None = None,
) -> EvalQuestion:
    paths = []
    for i, sig in enumerate(signatures):
        parts = sig.split()
        keys, labels = parts[0::2], parts[1::2]
        paths.append(
            EvalPath(
                uid=f"p{i}",
                signature=sig,
                hops=len(labels),
                labels=labels,
                concept_keys=keys,
                target=i == 0,
                name=f"path_{i}",
            )
        )
    keys = {k for p in paths for k in p.keys}
    return EvalQuestion(
        uid="q",
        id=1,
        domain="weather",
        text=text,
        hop=max(p.hops for p in paths),
        paths=paths,
        concepts={k: CONCEPTS[k][0] for k in keys},
        concept_words={k: CONCEPTS[k][1] for k in keys},
        relation_meanings=meanings or {},
    )


def present(q: EvalQuestion, answer: str) -> list[bool]:
    return [v.present for v in EdgeEvidenceJudge(faithfulness=False).path_verdicts(q, answer)]


def test_direction_active_and_passive_voice():
    q = question("rain CAUSES flood", "flood CAUSES rain")
    assert present(q, "Heavy rain causes the river to flood the valley.") == [True, False]
    assert present(q, "The flood was caused by days of heavy rain.") == [True, False]
    assert present(q, "The valley flooded because of the heavy rain.") == [True, False]


def test_a_contrast_is_not_a_cause_and_a_cause_is_not_an_order():
    q = question("rain CONTRASTS_WITH drought", "rain CAUSES drought", "rain PRECEDES drought")
    assert present(
        q, "Rain is the opposite of a drought: one soaks the soil, the other dries it."
    ) == [True, False, False]
    assert present(q, "In the calendar, the rain comes before the drought.") == [False, False, True]
    assert present(q, "Rain led to the drought, strange as it sounds.") == [False, True, False]


def test_symmetric_families_need_no_direction():
    q = question("drought CONTRASTS_WITH rain")
    assert present(q, "Heavy rain contrasts with a drought.") == [True]


def test_negated_cue_does_not_count():
    q = question("rain CAUSES flood")
    assert present(q, "Rain does not cause the flood; a broken dam does.") == [False]


def test_both_concepts_must_be_spoken_about():
    q = question("rain CAUSES flood")
    assert present(q, "Heavy rain causes a lot of trouble for farmers.") == [False]
    # recognised by a topic word ("overflow"), not only by the concept's name
    assert present(q, "Storm clouds dump rain that causes the river overflow.") == [True]


def test_a_path_is_present_only_when_every_edge_is():
    q = question("rain CAUSES flood CONTRASTS_WITH drought")
    judge = EdgeEvidenceJudge(faithfulness=False)
    both = judge.path_verdicts(
        q,
        "Heavy rain causes the flood. A flood is the opposite of a "
        "drought, with too much water instead of none.",
    )[0]
    one = judge.path_verdicts(q, "Heavy rain causes the flood.")[0]
    assert both.present and both.edges_present == [True, True]
    assert not one.present and one.edges_present == [True, False] and one.partial == 0.5


def test_two_sentence_window_joins_an_edge_split_over_sentences():
    q = question("rain CAUSES flood")
    text = "Heavy rain fell for a week. Soon the river flood was caused."
    assert [
        v.present for v in EdgeEvidenceJudge(window=2, faithfulness=False).path_verdicts(q, text)
    ] == [True]
    assert [
        v.present for v in EdgeEvidenceJudge(window=1, faithfulness=False).path_verdicts(q, text)
    ] == [False]


def test_a_pronoun_opening_a_sentence_stands_for_the_concept_named_before():
    q = question("rain CAUSES flood", "flood CAUSES rain")
    text = "Heavy rain fell for a week. It caused the flood on the river."
    assert [
        v.present for v in EdgeEvidenceJudge(window=1, faithfulness=False).path_verdicts(q, text)
    ] == [True, False]


def test_qualified_cause_rejects_another_qualifier():
    q = question("rain IS_A_POLITICAL_CAUSE_OF flood")
    assert present(q, "The rain was an economic cause of the flood.") == [False]
    assert present(q, "The rain was a political cause of the flood.") == [True]


def test_label_family_from_words_and_flipped_labels():
    assert family_of("IS_A_POLITICAL_CAUSE_OF") == ("cause", False)
    assert family_of("IS_A_SUBSEQUENT_PROCESS_TO") == ("order", True)
    assert family_of("HAS_COMPONENT") == ("part", True)
    q = question("flood IS_A_SUBSEQUENT_PROCESS_TO rain")
    assert present(q, "The flood comes after the rain.") == [True]
    assert present(q, "The flood comes before the rain.") == [False]


def test_palette_description_gives_an_unknown_label_its_meaning():
    meanings = relation_meanings(
        {
            "relation_palette_hypothesis": {
                "ops": {
                    "relations": [
                        {"name": "ZAPS", "description": "A switches B on with a command."}
                    ]
                }
            }
        }
    )
    assert meanings == {"ZAPS": "A switches B on with a command."}
    assert relation_for("ZAPS", meanings["ZAPS"]).family == "operate"
    assert relation_for("ZAPS").family == "label-words"  # no description: its own words
    q = question("rain ZAPS flood", meanings=meanings)
    assert present(q, "The rain switches the flood on.") == [True]


def test_question_phrases_name_concepts_one_to_one():
    infos = [ConceptInfo(key=k, summary=s, topic_words=w) for k, (s, w) in CONCEPTS.items()]
    profiles = build_profiles(infos, "Explain how rain, river floods, and droughts relate.")
    assert profiles["flood"].names == ["river floods"]
    assert profiles["rain"].names == ["Explain how rain"] or profiles["rain"].names == ["rain"]
    # a stem typical of one concept keeps its weight there and counts less elsewhere
    assert profiles["drought"].weights["dri"] > profiles["rain"].weights.get("dri", 0.0)


@pytest.mark.parametrize("answer", ["", "   "])
def test_empty_answer_has_no_path(answer):
    assert present(question("rain CAUSES flood"), answer) == [False]


def test_matched_sentence_per_edge_is_kept_for_highlighting():
    """`edge_sentences` names the answer sentence each edge was found in (-1: not found)."""
    q = question("rain CAUSES flood", "flood CAUSES rain")
    answer = "Storms come in spring. Heavy rain causes the river to flood the valley."
    found, reverse = EdgeEvidenceJudge(faithfulness=False).path_verdicts(q, answer)
    assert found.present and found.edge_sentences == [1]
    assert not reverse.present and reverse.edge_sentences == [-1]


def test_discontiguous_cue_with_the_object_in_its_gap():
    """ "rain makes the flood possible": the head "makes" and the tail "possible" enclose the
    object; a clause break or a long gap between them is no cue."""
    q = question("rain ENABLES_FUNCTION flood", "flood ENABLES_FUNCTION rain")
    assert present(q, "Heavy rain makes the river flood possible.") == [True, False]
    assert present(q, "Heavy rain makes the river flood, and that is possible.") == [False, False]
    assert present(q, "Heavy rain makes the old wide brown muddy river flood possible.") == [
        False,
        False,
    ]


def test_a_setting_is_a_context():
    q = question("rain IS_A_CONTEXT_FOR flood")
    assert present(q, "Heavy rain formed the setting in which the river flood happened.") == [True]


def test_a_reference_by_key_names_the_concept():
    """The published reasons say "Topic 13" for topic_13: such a reference names the concept
    (and gives its place for the direction), where the concept's words are absent."""
    q = EvalQuestion(
        uid="q",
        id=2,
        domain="physics",
        text="How do nuclear forces relate to radioactive dating?",
        hop=1,
        paths=[
            EvalPath(
                uid="p0",
                signature="topic_3 CAUSES topic_13",
                hops=1,
                labels=["CAUSES"],
                concept_keys=["topic_3", "topic_13"],
                target=True,
                name="path_0",
            )
        ],
        concepts={"topic_3": "Nuclear forces bind nucleons.", "topic_13": "Dating by decay."},
        concept_words={"topic_3": ["nuclear", "force"], "topic_13": ["dating", "decay"]},
    )
    profiles = build_profiles(concept_infos(q), q.text)
    assert profiles["topic_13"].key_stems == ("topic", "13")
    assert present(q, "Topic 3 causes the instability measured in Topic 13.") == [True]
    # the wrong way round, and a bare number is no reference
    assert present(q, "Topic 13 causes what Topic 3 describes.") == [False]
    assert present(q, "In 13 cases the balance causes nothing.") == [False]


def test_a_demonstrative_joins_a_sentence_to_the_one_before():
    q = question("rain CAUSES flood")
    # "this overflow" points back to the rain of the sentence before
    assert present(q, "Heavy rain fell for days. Engineers say this caused the flood.") == [True]
    assert present(q, "Heavy rain fell for days. Later a dam failure caused a flood.") == [False]
