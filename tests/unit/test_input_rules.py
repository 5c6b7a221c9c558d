"""The importer-wide input rules (issue 30, kg/input_rules.py), reader by reader without a
database: the malformed corpus refused with file:line:field, one BOM rule, one id rule."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from construction.perspectivebench.validation import validate_files
from construction.pipeline.chunks import ChunkInputError, read_chunks
from evaluation.judges.gold import GoldFileError, load_gold
from evaluation.runs.answer_import import AnswerFileError, parse_answers
from kg.input_rules import BOM, parse_id

CORPUS = Path(__file__).resolve().parents[1] / "data" / "malformed_inputs"
CASES = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))
GOOD_BENCH = Path(__file__).resolve().parents[1] / "data" / "malformed" / "good.jsonl"
DEMO = Path(__file__).resolve().parents[2] / "demo"


def problems_of(path: Path) -> list[str]:
    """What the file's reader refuses it with (the database is never reached)."""
    reader = path.name.split("_", 1)[0]
    if reader == "bench":
        return [str(p) for p in validate_files([path]).errors]
    errors: tuple[type[Exception], ...] = (ChunkInputError, GoldFileError, AnswerFileError)
    try:
        if reader == "chunks":
            read_chunks([path], "d")
        elif reader == "gold":
            load_gold(path, [])
        else:
            parse_answers(path, [])
    except errors as exc:
        return getattr(exc, "problems", None) or str(exc).splitlines()
    return []


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_reader_refuses_its_malformed_file_naming_line_and_field(name):
    found = problems_of(CORPUS / name)
    assert found, f"{name} was accepted"
    assert any(re.match(re.escape(str(CORPUS / name)) + r":\d+:[^\s:]+: ", p) for p in found), found
    assert any(CASES[name] in p for p in found), found


@pytest.mark.parametrize(
    "value, expected",
    [(7, 7), ("7", 7), ("0042", 42), (0, 0)],
)
def test_an_id_is_an_integer_or_digits_only(value, expected):
    assert parse_id(value) == (expected, None)


@pytest.mark.parametrize(
    "value", ["7_0_3", "2_9", " 7", "+7", "7.0", "-1", "٧", "", True, 7.0, None, [7], 2**63]
)
def test_anything_else_is_not_an_id(value):
    qid, problem = parse_id(value)
    assert qid is None and problem


def test_a_leading_bom_is_skipped_by_every_reader(tmp_path):
    """One rule: a file that starts with a UTF-8 byte-order mark reads as the same file
    without it (PerspectiveBench accepted it, the gold and answer readers refused it, the
    chunk reader with a wrong reason)."""
    for src, read in (
        (GOOD_BENCH, lambda p: [q.model_dump() for _, q in validate_files([p]).questions]),
        (DEMO / "build" / "chunks.json", lambda p: read_chunks([p], "d")),
        (DEMO / "judge" / "gold.jsonl", lambda p: problems_of_rows(p, load_gold)),
        (DEMO / "judge" / "answers.jsonl", lambda p: problems_of_rows(p, parse_answers)),
    ):
        with_bom = tmp_path / src.name
        with_bom.write_bytes(BOM + src.read_bytes())
        assert read(with_bom) == read(src), src


def problems_of_rows(path: Path, reader) -> list[str]:
    """The gold/answer readers check rows against the graph's questions; with none, every
    row is an unknown question: the same problems with and without a BOM (line by line)."""
    try:
        reader(path, [])
    except (GoldFileError, AnswerFileError) as exc:
        return [p.split(":", 1)[1] for p in exc.problems]  # without the file's folder
    return []
