import hashlib

import pytest

from kg.ids import content_uid


def test_scheme_is_sha256_of_canonical_json():
    expected = hashlib.sha256(b'["physics","topic_3"]').hexdigest()[:24]
    assert content_uid("physics", "topic_3") == expected
    assert content_uid("Zoë", 3) == hashlib.sha256('["Zoë",3]'.encode()).hexdigest()[:24]


def test_mapping_keys_are_sorted_and_unencodable_fields_fail():
    assert content_uid({"b": 1, "a": 2}) == content_uid({"a": 2, "b": 1})
    with pytest.raises(TypeError):
        content_uid(object())


def test_every_area_uses_the_same_scheme():
    from kg.ids import answer_uid, comment_uid, concept_uid

    assert concept_uid("d", "topic_1") == content_uid("d", "topic_1")
    assert comment_uid("text") == content_uid("text")
    assert answer_uid("run", "q") == content_uid("answer", "run", "q")


def test_named_uids_keep_the_values_the_stages_wrote_inline():
    # Before kg.ids named them, the build stages computed these with content_uid directly.
    from kg import ids

    assert ids.entity_uid("d", "Heat") == content_uid("d", "heat")
    assert ids.chunk_uid("d", "a.txt", "text") == content_uid("d", "a.txt", "text")
    assert ids.perspective_uid("d", ["a", "b"], "label", ["X"]) == content_uid(
        "d", "perspective", "a", "b", "label", "X"
    )
    assert ids.build_step_uid("d", "facts", "c1") == content_uid("d", "facts", "c1")
    assert ids.build_step_uid("d", "facts", "c1", 0) == content_uid("d", "facts", "c1")
    assert ids.build_step_uid("d", "pairs", "x", 2) == content_uid("d", "pairs", "x", 2)
    assert ids.build_run_uid("d", 7) == content_uid("build", "d", 7)
    assert ids.task_item_uid("set", 3) == content_uid("TaskItem", "set", 3)
    assert ids.task_answer_uid("run", "item") == content_uid("Answer", "run", "item")
