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
    from construction.perspectivebench.ids import concept_uid
    from construction.perspectra.uids import comment_uid
    from evaluation.ids import answer_uid

    assert concept_uid("d", "topic_1") == content_uid("d", "topic_1")
    assert comment_uid("text") == content_uid("text")
    assert answer_uid("run", "q") == content_uid("answer", "run", "q")
