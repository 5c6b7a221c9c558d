"""The relation reader: masked spans, training on a few edge reasons (with their reversed
masking as hard negatives), reading a paraphrase no cue list holds, and counted abstentions."""

from __future__ import annotations

from evaluation.judges.concepts import build_profiles
from evaluation.judges.edge_evidence import EdgeEvidenceJudge, _positions, _Window, concept_infos
from evaluation.judges.relation_reader import (
    BLANK,
    MASK_A,
    MASK_B,
    RelationReader,
    masked_span,
    relation_class,
)
from evaluation.models import EvalPath, EvalQuestion

CONCEPTS = {
    "rain": ("Heavy rain is a long fall of water from storm clouds.", ["rain", "storm"]),
    "flood": ("A flood covers normally dry land with river water.", ["flood", "overflow"]),
    "drought": ("A drought is a long period without rainfall.", ["drought", "dryness"]),
    "harvest": ("The harvest gathers the ripe crops from the fields.", ["harvest", "crops"]),
}


def question(edges: list[tuple[str, str, str, str]], uid: str = "q") -> EvalQuestion:
    """One-hop paths (source, label, target, reason)."""
    paths = [
        EvalPath(
            uid=f"{uid}-p{i}",
            signature=f"{a} {label} {b}",
            hops=1,
            labels=[label],
            concept_keys=[a, b],
            target=i == 0,
            name=f"path_{i}",
            reasons=[reason] if reason else [],
        )
        for i, (a, label, b, reason) in enumerate(edges)
    ]
    keys = {k for p in paths for k in p.keys}
    return EvalQuestion(
        uid=uid,
        id=1,
        domain="weather",
        text="How are the weather and the farm's year related?",
        hop=1,
        paths=paths,
        concepts={k: CONCEPTS[k][0] for k in keys},
        concept_words={k: CONCEPTS[k][1] for k in keys},
    )


# Reasons that state CAUSES with "swamps"/"swamped" and PRECEDES with "ahead of in the year":
# neither is a cue of relations.py's families, so only a reader learned from them reads them.
TRAINING = [
    question(
        [
            ("rain", "CAUSES", "flood", "Weeks of heavy rain swamp the plain and a flood follows."),
            ("rain", "PRECEDES", "flood", "In the calendar rain comes ahead of the flood season."),
            ("drought", "CAUSES", "harvest", "The drought swamps the harvest with losses."),
            ("drought", "PRECEDES", "harvest", "The drought comes ahead of the harvest."),
        ],
        uid="train",
    )
]


def test_masking_keeps_the_connecting_words_and_blanks_topic_words():
    q = TRAINING[0]
    profiles = build_profiles(concept_infos(q), q.text)
    w = _Window("Heavy rain swamps the plain with a flood.")
    a = _positions(w, profiles["rain"], profiles["flood"])
    b = _positions(w, profiles["flood"], profiles["rain"])
    span = masked_span(w.stems, a, b, profiles.values())
    assert span is not None
    assert span.count(MASK_A) == 1 and span.count(MASK_B) == 1
    assert span.index(MASK_A) < span.index("swamp") < span.index(MASK_B)
    assert "rain" not in span and "flood" not in span
    # the other way round: the same words, the masks swapped (the reverse example)
    back = masked_span(w.stems, b, a, profiles.values())
    assert back is not None and back.index(MASK_B) < back.index(MASK_A)
    # "crops", a topic word of another concept (the harvest), is topic: blanked
    w2 = _Window("Rain swamps the crops and a flood follows.")
    span2 = masked_span(
        w2.stems,
        _positions(w2, profiles["rain"], profiles["flood"]),
        _positions(w2, profiles["flood"], profiles["rain"]),
        profiles.values(),
    )
    assert span2 is not None and "crop" not in span2 and BLANK in span2


def test_one_mention_missing_gives_no_span():
    assert masked_span(["rain", "fall"], [0], []) is None


def test_examples_are_each_reason_both_ways_round():
    docs, classes = RelationReader.examples(TRAINING)
    assert sorted(set(classes)) == ["cause<", "cause>", "order<", "order>"]
    assert classes.count("cause>") == classes.count("cause<") == 2
    assert all(MASK_A in d and MASK_B in d for d in docs)


def test_reader_reads_a_paraphrase_learned_from_reasons():
    reader = RelationReader().fit(TRAINING)
    assert reader.stats.examples == 8
    judged = question(
        [("rain", "CAUSES", "flood", ""), ("rain", "PRECEDES", "flood", "")], uid="judged"
    )
    answer = "Heavy rain swamps the valley and the flood is the result."
    plain = EdgeEvidenceJudge(faithfulness=False)
    assert [v.present for v in plain.path_verdicts(judged, answer)] == [False, False]
    judge = EdgeEvidenceJudge(faithfulness=False, reader=reader)
    verdicts = judge.path_verdicts(judged, answer)
    assert [v.present for v in verdicts] == [True, False]
    assert "reader" in verdicts[0].reason
    assert judge.reader_reads == 2 and judge.reader_abstentions == 0
    # the reverse direction reads as the rival: flood -CAUSES-> rain is not found
    reverse = question([("flood", "CAUSES", "rain", "")], uid="reverse")
    assert [v.present for v in judge.path_verdicts(reverse, answer)] == [False]


def test_an_unknown_relation_is_an_abstention_counted_not_a_verdict():
    reader = RelationReader().fit(TRAINING)
    assert relation_class("CONTRASTS_WITH") not in reader.classes
    judged = question([("rain", "CONTRASTS_WITH", "drought", "")], uid="judged")
    judge = EdgeEvidenceJudge(faithfulness=False, reader=reader)
    verdicts = judge.path_verdicts(judged, "Rain swamps a drought in some years.")
    assert verdicts[0].present is False
    assert "reader abstained" in verdicts[0].reason
    assert judge.reader_abstentions == 1 and judge.reader_reads == 0


def test_learn_fits_the_reader_and_names_it_in_the_judge():
    judge = EdgeEvidenceJudge(faithfulness=False)
    assert "reader" not in judge.name
    reader = judge.learn(TRAINING)
    assert judge.reader is reader and reader.classes
    assert judge.name.endswith(",reader>=0.7)")


def test_one_class_leaves_the_reader_untrained_and_abstaining():
    one = question([("rain", "CONTRASTS_WITH", "drought", "Rain is unlike a drought.")])
    reader = RelationReader().fit([one])
    assert reader.stats.examples == 2 and reader.model is None  # a symmetric family: one class
    assert reader.score([["X", "unlik", "Y"]], "contrast", set()) is None
