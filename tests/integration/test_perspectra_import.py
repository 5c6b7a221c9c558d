"""Perspectra.json into a real Neo4j: counts, pairing, idempotence, bad input leaves no trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.perspectra.errors import PerspectraInputError
from construction.perspectra.graph_writer import IncompleteWrite, graph_counts, write_import
from construction.perspectra.models import ExpansionRow, TopicRow
from construction.perspectra.release_import import release_rows
from construction.perspectra.rows import ImportRows
from kg import ids as uids

pytestmark = pytest.mark.integration

BAD = Path(__file__).resolve().parents[1] / "data" / "perspectra_malformed"
EXPECTED = {
    "topics": 100,
    "opinions": 762,
    "comments": 2436,
    "expansions": 3810,
    "matches": 3810,
    "styled_on": 3810,
}


@pytest.fixture(scope="module")
def release(shared_data) -> Path:
    return shared_data / "perspectra" / "Perspectra.json"


@pytest.fixture(scope="module")
def imported(store, release):
    write_import(store, release_rows(release))
    return graph_counts(store)


def test_counts_as_published(imported) -> None:
    assert {k: imported[k] for k in EXPECTED} == EXPECTED


def test_reimport_is_idempotent(store, release, imported) -> None:
    before = store.node_counts()
    write_import(store, release_rows(release))
    assert graph_counts(store) == imported
    assert store.node_counts() == before


def test_expansion_i_styled_on_comment_i_as_given(store, release, imported) -> None:
    topic = json.loads(release.read_text(encoding="utf-8"))[7]
    op = topic["cons"][0]
    o_uid = uids.opinion_uid(topic["topic"], "con", op["opinion"])
    got = store.run_text(
        "MATCH (o:Opinion {uid: $uid})<-[:EXPANDS]-(e:Expansion)-[s:STYLED_ON]->(c:Comment) "
        "MATCH (o)-[m:MATCHED {rank: s.rank}]->(c) "
        "RETURN s.rank AS rank, e.text AS expansion, c.text AS comment, o.stance AS stance "
        "ORDER BY rank",
        uid=o_uid,
    )
    assert [r["rank"] for r in got] == [1, 2, 3, 4, 5]
    assert [r["expansion"] for r in got] == op["expanded"]
    assert [r["comment"] for r in got] == op["top5_matches"]
    assert {r["stance"] for r in got} == {"con"}


def test_one_comment_node_per_distinct_text(store, imported) -> None:
    top = store.run_text(
        "MATCH (c:Comment)<-[:MATCHED]-(o:Opinion) "
        "RETURN c.uid AS uid, count(*) AS slots, count(DISTINCT o) AS opinions "
        "ORDER BY slots DESC LIMIT 1"
    )
    # the most reused comment fills 24 match slots, several of them repeated within one
    # opinion's top 5 (the release repeats it up to 5 times): one MATCHED edge per rank
    assert (top[0]["slots"], top[0]["opinions"]) == (24, 6)


@pytest.mark.parametrize(
    "name", sorted(p.name for p in BAD.glob("*.json") if not p.name.startswith("kialo"))
)
def test_malformed_release_changes_nothing(store, imported, name: str) -> None:
    before = store.node_counts()
    with pytest.raises(PerspectraInputError):
        write_import(store, release_rows(BAD / name))
    assert store.node_counts() == before


def test_failed_batch_rolls_back_the_whole_import(store, imported) -> None:
    """A row whose endpoint is missing aborts the transaction: the new topic is not kept."""
    before = graph_counts(store)
    rows = ImportRows(
        topics=[
            TopicRow(uid=uids.topic_uid("Brand new topic"), text="Brand new topic", source="test")
        ],
        expansions=[
            ExpansionRow(
                uid="x" * 24,
                opinion_uid="missing",
                comment_uid="missing",
                rank=1,
                text="t",
                generator="g",
                source="test",
            )
        ],
    )
    with pytest.raises(IncompleteWrite, match="nothing written"):
        write_import(store, rows)
    assert graph_counts(store) == before
