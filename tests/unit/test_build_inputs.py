"""Unit tests of the build's input handling: palettes, chunk files, text splitting, config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.pipeline.chunks import ChunkInputError, read_chunks, split_text
from construction.pipeline.config import BuildConfig
from kg.palette import PaletteError, load_palette, parse_palette

SAMPLES = Path(__file__).resolve().parents[2] / "demo" / "build"


def test_demo_palette_loads_with_categories_and_labels():
    palette = load_palette(SAMPLES / "palette.json")
    assert set(palette.categories) == {
        "flow_relations",
        "causal_relations",
        "structural_relations",
        "process_relations",
    }
    assert palette.category_of("PRECEDES") == "process_relations"
    assert palette.category_of("NOT_THERE") is None
    assert "supplies" in next(r for r in palette.relations() if r.name == "SUPPLIES").text()


def test_palette_without_wrapper_is_accepted():
    palette = parse_palette({"causal": {"relations": [{"name": "CAUSES"}]}})
    assert palette.labels() == {"CAUSES"}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"c": {"relations": [{"name": "causes"}]}}, "c.relations[0].name 'causes'"),
        ({"c": {"relations": [{"name": "A B"}]}}, "must match"),
        ({"c": {"relations": []}}, "no relations"),
        ({"bad cat": {"relations": [{"name": "X"}]}}, "category 'bad cat'"),
        ({"c": {"relations": [{"description": "no name"}]}}, "field c.relations.0.name"),
        (
            {"a": {"relations": [{"name": "X"}]}, "b": {"relations": [{"name": "X"}]}},
            "already in category 'a'",
        ),
        ([], "expected an object"),
    ],
)
def test_palette_errors_name_the_field(doc, message):
    with pytest.raises(PaletteError, match="demo.json") as err:
        parse_palette(doc, "demo.json")
    assert message in str(err.value)


def test_palette_file_with_bad_json_names_the_line(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{\n  "c": {\n    "relations": [,]\n  }\n}\n')
    with pytest.raises(PaletteError, match=r"p.json: line 3: invalid JSON"):
        load_palette(f)


def test_demo_chunks_are_in_the_published_format():
    chunks = read_chunks([SAMPLES / "chunks.json"], "demo")
    assert 20 <= len(chunks) <= 40
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert len({c.uid for c in chunks}) == len(chunks)
    assert all(c.source and c.text for c in chunks)


def test_chunk_json_error_names_file_line_and_field(tmp_path):
    f = tmp_path / "chunks.json"
    f.write_text(
        json.dumps(
            [
                {"id": 0, "subject": "s", "source": "a.txt", "text": "Fine text."},
                {"id": 1, "subject": "s", "text": "No source here."},
            ],
            indent=2,
        )
    )
    with pytest.raises(ChunkInputError) as err:
        read_chunks([f], "d")
    msg = str(err.value)
    assert "chunks.json:8:[1].source: Field required" in msg


def test_chunk_json_rejects_duplicate_ids_and_empty_text(tmp_path):
    f = tmp_path / "c.json"
    f.write_text(
        json.dumps(
            [{"id": 0, "source": "a", "text": "x y z."}, {"id": 0, "source": "a", "text": "other."}]
        )
    )
    with pytest.raises(ChunkInputError, match="duplicate id '0'"):
        read_chunks([f], "d")
    f.write_text(json.dumps([{"id": 0, "source": "a", "text": "  "}]))
    with pytest.raises(ChunkInputError, match=r"\[0\]\.text: empty"):
        read_chunks([f], "d")


def test_plain_text_is_split_into_overlapping_chunks(tmp_path):
    text = " ".join(f"Sentence number {i} talks about pumps and pipes." for i in range(60))
    f = tmp_path / "notes.txt"
    f.write_text(text)
    chunks = read_chunks([f], "d", size=300, overlap=80)
    assert len(chunks) > 5
    assert all(len(c.text) <= 300 for c in chunks)
    assert all(c.source == "notes.txt" for c in chunks)
    # consecutive chunks overlap
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.text[:20] in a.text
    assert split_text("", 100, 10) == []
    with pytest.raises(ChunkInputError, match="overlap"):
        split_text("abc", 100, 100)


def test_missing_chunk_file_is_reported(tmp_path):
    with pytest.raises(ChunkInputError, match="no such file"):
        read_chunks([tmp_path / "nope.json"], "d")


def test_min_cluster_size_scales_down_for_small_corpora():
    cfg = BuildConfig(domain="d")
    assert cfg.scaled_min_cluster_size(1000) == 10
    assert cfg.scaled_min_cluster_size(150) == 6
    assert cfg.scaled_min_cluster_size(20) == 3
