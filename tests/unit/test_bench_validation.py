"""Validation of PerspectiveBench lines: the malformed corpus, the 10 MB line, the shared sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.perspectivebench.models import dump_line
from construction.perspectivebench.validation import validate_files

MALFORMED = Path(__file__).resolve().parents[1] / "data" / "malformed"

# file -> (line, field, words the message must contain)
EXPECTED = {
    "broken_json.jsonl": (1, "-", "broken JSON"),
    "not_an_object.jsonl": (1, "-", "expected a JSON object"),
    "missing_field.jsonl": (1, "valid_paths", "missing required field"),
    "mistyped_field.jsonl": (1, "id", "valid integer"),
    "unknown_concept.jsonl": (1, "valid_paths[1].path_1", "'topic_9' is not in full_content_pool"),
    "bad_arrow.jsonl": (1, "valid_paths[1].path_1", "bad path syntax"),
    "empty_label.jsonl": (1, "valid_paths[1].path_1", "empty relation label"),
    "four_hops.jsonl": (1, "valid_paths[1].path_1", "4 hops"),
    "cypher_label.jsonl": (1, "valid_paths[1].path_1", "invalid relation label"),
    "bad_reason_keys.jsonl": (1, "valid_paths[1]", "reason keys"),
    "target_not_valid.jsonl": (1, "perspective_valid_paths[0]", "not among valid_paths"),
    "empty_targets.jsonl": (1, "perspective_valid_paths", "at least one item"),
    "empty_evidence.jsonl": (1, "focused_evidence", "at least one item"),
    "no_distractor.jsonl": (1, "valid_paths", "no distractor"),
    "duplicate_ids.jsonl": (2, "id", "different content"),
    "code_topic_words.jsonl": (
        1,
        "full_content_pool.topic_1_source.Topic Words",
        "not a list of strings",
    ),
    "non_utf8.jsonl": (1, "-", "not valid UTF-8"),
    "empty.jsonl": (0, "-", "file is empty"),
}


def test_corpus_has_every_listed_file():
    files = {p.name for p in MALFORMED.glob("*.jsonl")} - {"good.jsonl"}
    assert files == set(EXPECTED)
    assert len(files) >= 12


def test_good_line_is_valid():
    result = validate_files([MALFORMED / "good.jsonl"])
    assert result.errors == []
    assert len(result.questions) == 1
    _, q = result.questions[0]
    assert q.to_json() == json.loads((MALFORMED / "good.jsonl").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_bad_file_gets_a_clear_message(name):
    line, field, words = EXPECTED[name]
    path = MALFORMED / name
    result = validate_files([path])
    assert result.errors, f"{name} was accepted"
    first = result.errors[0]
    assert (first.file, first.line, first.field) == (str(path), line, field)
    assert words in first.message
    assert str(first).startswith(f"{path}:{line}:{field}: ")


def test_duplicate_ids_keep_the_first_line_and_reject_the_second():
    result = validate_files([MALFORMED / "duplicate_ids.jsonl"])
    assert [ref.line for ref, _ in result.questions] == [1]
    assert [ref.line for ref, _ in result.rejected] == [2]
    assert "duplicate_ids.jsonl:1" in result.errors[0].message


def test_identical_repeated_line_is_skipped_and_counted(tmp_path):
    good = (MALFORMED / "good.jsonl").read_text()
    f = tmp_path / "twice.jsonl"
    f.write_text(good + "\n" + good)  # a blank line between the two copies
    result = validate_files([f])
    assert result.errors == []
    assert len(result.questions) == 1
    assert result.duplicates == 1
    assert result.blank_lines == 1
    assert any("identical content" in w.message for w in result.warnings)


def test_ten_megabyte_line_is_rejected_without_parsing(tmp_path):
    obj = json.loads((MALFORMED / "good.jsonl").read_text())
    obj["focused_evidence"] = ["x" * (10 * 1024 * 1024)]
    f = tmp_path / "huge.jsonl"
    f.write_text(json.dumps(obj) + "\n" + (MALFORMED / "good.jsonl").read_text())
    assert f.stat().st_size > 10 * 1024 * 1024
    result = validate_files([f])
    assert len(result.errors) == 1
    err = result.errors[0]
    assert (err.line, err.field) == (1, "-")
    assert "the limit is" in err.message
    assert [ref.line for ref, _ in result.questions] == [2]


def test_mixed_file_reports_every_bad_line(tmp_path):
    good = (MALFORMED / "good.jsonl").read_text().strip()
    bad = [(MALFORMED / n).read_text().strip() for n in ("bad_arrow.jsonl", "four_hops.jsonl")]
    obj = json.loads(good)
    obj["id"] = 2
    f = tmp_path / "mixed.jsonl"
    f.write_text("\n".join([good, bad[0], json.dumps(obj), bad[1]]) + "\n")
    result = validate_files([f])
    assert [e.line for e in result.errors] == [2, 4]
    assert [ref.line for ref, _ in result.questions] == [1, 3]


def test_conflicting_summaries_are_a_warning_with_both_texts(tmp_path):
    obj = json.loads((MALFORMED / "good.jsonl").read_text())
    other = json.loads(json.dumps(obj))
    other["id"] = 2
    other["full_content_pool"]["topic_1_source"]["Summary"] = "A different summary."
    f = tmp_path / "two.jsonl"
    f.write_text(dump_line(obj) + "\n" + dump_line(other) + "\n")
    result = validate_files([f])
    assert result.errors == []
    warn = [w for w in result.warnings if "two summaries" in w.message]
    assert len(warn) == 1
    assert "A different summary." in warn[0].message
    assert "drives and watches the pump" in warn[0].message


def test_shared_sample_is_valid_and_reproduced(shared_data):
    path = shared_data / "perspectivebench" / "sample.jsonl"
    result = validate_files([path])
    assert result.errors == []
    assert len(result.questions) == 139
    none_warnings = [w for w in result.warnings if "'None'" in w.message]
    assert none_warnings and all(w.field.startswith("valid_paths[") for w in none_warnings)
    lines = path.read_text(encoding="utf-8").splitlines()
    for (_, q), line in zip(result.questions, lines, strict=True):
        assert q.to_json() == json.loads(line)


def test_sample_questions_share_56_path_sets(shared_data):
    result = validate_files([shared_data / "perspectivebench" / "sample.jsonl"])
    sets = {
        (q.domain, frozenset(p.path.signature for p in q.valid_paths)) for _, q in result.questions
    }
    assert len(sets) == 56


def test_byte_order_mark_and_crlf_are_tolerated(tmp_path):
    good = (MALFORMED / "good.jsonl").read_bytes().strip()
    f = tmp_path / "bom.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + good + b"\r\n")
    result = validate_files([f])
    assert result.errors == [] and len(result.questions) == 1
