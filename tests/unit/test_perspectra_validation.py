"""Importers of PERSPECTRA inputs: good files become rows; each bad file gets a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.perspectra.errors import PerspectraInputError
from construction.perspectra.kialo_import import kialo_rows
from construction.perspectra.reddit_import import reddit_rows
from construction.perspectra.release_import import RELEASE_GENERATOR, release_rows
from kg import ids as uids

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "perspectra"
BAD = ROOT / "tests" / "data" / "perspectra_malformed"


def test_release_rows_counts_and_pairing() -> None:
    rows = release_rows(DEMO / "sample_release.json")
    c = rows.counts()
    assert (c["topics"], c["opinions"], c["matches"], c["expansions"]) == (3, 14, 70, 70)
    assert c["comments"] == len({m.comment_uid for m in rows.matches}) == 7
    # expansion i is STYLED_ON comment i of the same opinion, rank 1 = best match
    by_slot = {(m.opinion_uid, m.rank): m.comment_uid for m in rows.matches}
    for e in rows.expansions:
        assert by_slot[(e.opinion_uid, e.rank)] == e.comment_uid
        assert e.generator == RELEASE_GENERATOR
    assert {e.rank for e in rows.expansions} == {1, 2, 3, 4, 5}
    assert {o.stance for o in rows.opinions} == {"pro", "con"}


def test_uids_are_content_hashes() -> None:
    a = release_rows(DEMO / "sample_release.json")
    b = release_rows(DEMO / "sample_release.json")
    assert [t.uid for t in a.topics] == [t.uid for t in b.topics]
    assert a.comments[0].uid == uids.comment_uid(a.comments[0].text)
    assert uids.opinion_uid("t", "pro", "x") != uids.opinion_uid("t", "con", "x")
    assert len(a.topics[0].uid) == 24


def test_duplicate_comment_within_one_opinion_is_kept_per_rank(tmp_path: Path) -> None:
    data = json.loads((DEMO / "sample_release.json").read_text())
    op = data[0]["pros"][0]
    op["top5_matches"][3] = op["top5_matches"][0]  # as in the release: 7 such opinions
    f = tmp_path / "dup_comment.json"
    f.write_text(json.dumps(data))
    rows = release_rows(f)
    ranks = [m.rank for m in rows.matches if m.opinion_uid == rows.opinions[0].uid]
    assert ranks == [1, 2, 3, 4, 5]


CASES = {
    # file: (line, topic substring or None, field, problem substring)
    "four_matches.json": (2, "Homework", "cons[0].top5_matches", "at least 5 items"),
    "empty_opinion.json": (2, "public transport", "pros[1].opinion", "empty"),
    "empty_expansion.json": (2, "Homework", "pros[0].expanded[2]", "empty"),
    "duplicate_topic.json": (2, "public transport", "topic", "duplicate topic"),
    "duplicate_opinion.json": (2, "Homework", "cons[3].opinion", "duplicate opinion"),
    "stance_not_list.json": (2, "Homework", "cons", "valid list"),
    "missing_expanded.json": (2, "public transport", "pros[0].expanded", "Field required"),
    "match_not_string.json": (2, "public transport", "pros[0].top5_matches[1]", "valid string"),
    "not_a_list.json": (1, None, "<file>", "JSON list"),
    "truncated.json": (None, None, "<file>", "invalid JSON"),
    "non_utf8.json": (None, None, "<file>", "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_release_files_name_file_line_topic_field(name: str) -> None:
    line, topic, field, problem = CASES[name]
    with pytest.raises(PerspectraInputError) as info:
        release_rows(BAD / name)
    msg = str(info.value)
    assert name in msg and "nothing written" in msg
    assert f"field {field!r}" in msg
    assert problem in msg
    if topic:
        assert topic in msg
    p = info.value.problems[0]
    if line is not None:
        if name == "duplicate_topic.json":
            assert p.line > line and f"first at line {line}" in p.message
        elif name == "not_a_list.json":
            assert p.line == line
        else:
            # the line where the offending topic starts in the file
            text = (BAD / name).read_text(encoding="utf-8").splitlines()
            assert text[p.line - 1].strip().startswith("{")
    else:
        assert p.line is not None and p.line > 1


def test_kialo_rows_and_errors() -> None:
    rows = kialo_rows(DEMO / "sample_kialo.json")
    assert rows.counts()["topics"] == 3 and rows.counts()["opinions"] == 14
    assert rows.expansions == [] and rows.matches == []
    release = release_rows(DEMO / "sample_release.json")
    # same topic/opinion text -> same uids as the release importer (they merge in the graph)
    assert {o.uid for o in rows.opinions} == {o.uid for o in release.opinions}
    with pytest.raises(PerspectraInputError, match=r"jsonl:1: topic 'A topic' field 'pros\[1\]'"):
        kialo_rows(BAD / "kialo_duplicate_opinion.jsonl")
    with pytest.raises(PerspectraInputError, match=r"field 'pros': Input should be a valid list"):
        kialo_rows(BAD / "kialo_pros_not_list.json")


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("reddit_bad_score.jsonl", r"reddit_bad_score.jsonl:2: field 'score'"),
        ("reddit_no_topic.jsonl", r"reddit_no_topic.jsonl:3: field 'topic': no topic"),
        ("reddit_bad_json.jsonl", r"reddit_bad_json.jsonl:2: field '<line>': invalid JSON"),
    ],
)
def test_bad_reddit_files(name: str, pattern: str) -> None:
    with pytest.raises(PerspectraInputError, match=pattern):
        reddit_rows(BAD / name)


def test_reddit_no_topic_is_fine_with_default_topic() -> None:
    rows, report = reddit_rows(BAD / "reddit_no_topic.jsonl", default_topic="Some topic")
    assert report.read == 3
