import re

import pytest

from kg import cypher_files
from kg.prompt_files import Prompt
from kg.store import check_identifier, chunked


def test_every_file_loads_and_names_are_clean():
    names = cypher_files.all_names()
    assert "core/node_counts" in names and "schema/core" in names
    for name in names:
        assert re.fullmatch(r"[a-z0-9_]+(/[a-z0-9_]+)+", name), name
        assert cypher_files.load(name)


@pytest.mark.parametrize("bad", ["../etc/passwd", "core/Node", "core/x;y", "", "core/"])
def test_bad_names_rejected(bad):
    with pytest.raises(cypher_files.CypherNotFound):
        cypher_files.load(bad)


def test_missing_file_named_in_error():
    with pytest.raises(cypher_files.CypherNotFound, match="cypher/core/nope.cypher"):
        cypher_files.load("core/nope")


def test_schema_split_into_statements():
    stmts = cypher_files.statements("schema/core")
    assert all(not s.endswith(";") for s in stmts)
    assert any("FULLTEXT INDEX concept_text" in s for s in stmts)
    assert any("VECTOR INDEX fact_embedding" in s for s in stmts)
    keys = [
        "Domain",
        "Chunk",
        "Fact",
        "Entity",
        "Concept",
        "Path",
        "Question",
        "Run",
        "Answer",
        "Verdict",
        "Claim",
        "DebateTopic",
        "Opinion",
        "Comment",
        "Expansion",
        "TaskItem",
    ]
    for label in keys:
        assert any(f"(n:{label}) REQUIRE" in s for s in stmts), label


def test_no_query_text_is_built_from_strings():
    # Every file is parameterized: no Python-style placeholders that would invite splicing.
    for name in cypher_files.all_names():
        text = cypher_files.load(name)
        assert "{0}" not in text and "%s" not in text and "{}" not in text, name


@pytest.mark.parametrize("bad", ["CAUSES]->(x) DETACH DELETE x //", "", "1ABC", "A-B", "a b"])
def test_identifier_validation(bad):
    with pytest.raises(ValueError):
        check_identifier(bad, "label")


def test_identifier_ok_and_chunking():
    assert check_identifier("EXPLAINS_PHENOMENON") == "EXPLAINS_PHENOMENON"
    assert [len(b) for b in chunked(range(7), 3)] == [3, 3, 1]


def test_prompt_hash_and_render():
    p = Prompt(name="t", text="Question: $question")
    assert p.render(question="why?") == "Question: why?"
    assert len(p.hash) == 12 and p.hash != Prompt(name="t", text="other").hash
    with pytest.raises(KeyError):
        p.render()
