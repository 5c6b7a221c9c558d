"""Pipeline for new data on a real Neo4j: Kialo topics, Reddit candidates, matching with the real
MiniLM embedder, LLM expansions through the real client and the local HTTP test server."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from construction.perspectra.errors import PerspectraInputError
from construction.perspectra.expansion import expand, pending_slots
from construction.perspectra.graph_writer import graph_counts, missing_topics, write_import
from construction.perspectra.kialo_import import kialo_rows
from construction.perspectra.matching import match_topics
from construction.perspectra.reddit_import import reddit_rows
from kg.embeddings import get_embedder
from kg.llm import LLMClient

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "perspectra"
BAD = ROOT / "tests" / "data" / "perspectra_malformed"


@pytest.fixture(scope="module")
def loaded(store):
    write_import(store, kialo_rows(DEMO / "sample_kialo.json"))
    rows, report = reddit_rows(DEMO / "sample_reddit.jsonl")
    assert not missing_topics(store, sorted({t for _, t in rows.candidates}))
    write_import(store, rows)
    return report


def test_kialo_and_reddit_in_the_graph(store, loaded) -> None:
    c = graph_counts(store)
    assert (c["topics"], c["opinions"], c["comments"], c["candidates"]) == (3, 14, 12, 12)
    got = store.run_text(
        "MATCH (c:Comment {author: 'teacher_tom'})-[:CANDIDATE_FOR]->(t) "
        "RETURN c.score AS score, c.thread AS thread, t.text AS topic"
    )
    assert got == [
        {"score": 47, "thread": "t3_b1", "topic": "Homework should be banned in primary schools."}
    ]


def test_bad_kialo_and_reddit_files_write_nothing(store, loaded) -> None:
    before = store.node_counts()
    for name, load in [
        ("kialo_duplicate_opinion.jsonl", kialo_rows),
        ("reddit_bad_score.jsonl", lambda p: reddit_rows(p)[0]),
    ]:
        with pytest.raises(PerspectraInputError):
            write_import(store, load(BAD / name))
    assert store.node_counts() == before


def test_match_top5_by_cosine_with_real_embeddings(store, loaded) -> None:
    emb = get_embedder()
    report = match_topics(store, emb.encode, emb.model_name, k=5)
    assert (report.topics, report.opinions_matched, report.edges) == (3, 14, 14 * 4)
    assert report.opinions_short == 14  # every topic has only 4 candidates
    rows = store.run_text(
        "MATCH (t:DebateTopic)-[:HAS_OPINION]->(o:Opinion)-[m:MATCHED]->(c:Comment) "
        "MATCH (c)-[:CANDIDATE_FOR]->(t) "
        "RETURN o.uid AS o, o.text AS text, m.rank AS rank, m.cosine AS cos, c.text AS comment "
        "ORDER BY o, rank"
    )
    assert len(rows) == 56  # every match is a candidate of the opinion's own topic
    by_op: dict[str, list[dict]] = {}
    for r in rows:
        by_op.setdefault(r["o"], []).append(r)
    for op_rows in by_op.values():
        cos = [r["cos"] for r in op_rows]
        assert cos == sorted(cos, reverse=True) and [r["rank"] for r in op_rows] == [1, 2, 3, 4]
        best = emb.encode([op_rows[0]["text"], op_rows[0]["comment"]])
        expected = float(best[0] @ best[1])
        assert np.isclose(cos[0], expected, atol=1e-5)
    commute = by_op[next(k for k, v in by_op.items() if "commuting" in v[0]["text"])]
    assert "commuting" in commute[0]["comment"]  # the obvious best match is rank 1
    again = match_topics(store, emb.encode, emb.model_name, k=5)
    assert (again.opinions_matched, again.opinions_skipped) == (0, 14)
    forced = match_topics(store, emb.encode, emb.model_name, k=5, force=True)
    assert forced.edges == 56 and graph_counts(store)["matches"] == 56


def _opinion_of(prompt: str) -> str:
    return re.search(r"Original argument: (.*)", prompt).group(1)


def test_expansions_with_resume_and_counted_failures(store, loaded, llm_server) -> None:
    assert graph_counts(store)["matches"] == 56
    llm_server.add_rule(match="Homework shows parents", status=500)  # always fails
    llm_server.add_rule(match="Crowding would get worse", reply="   ")  # empty reply
    llm_server.add_rule(
        match="Original argument:",
        reply=lambda body: f'"Honestly, {_opinion_of(body["messages"][0]["content"]).lower()} lol"',
    )
    client = LLMClient(llm_server.config(role="builder", max_retries=0, model="expander-1"))
    first = expand(store, client, limit=20)
    assert first.pending == 20 == first.written + first.failed + first.empty
    second = expand(store, client)  # resumes: only slots without an expansion are asked
    assert second.pending == 56 - first.written
    # 4 slots of the failing opinion, 4 of the empty-reply one: counted, not stored
    assert (second.failed, second.empty, second.written) == (4, 4, 48 - first.written)
    assert llm_server.calls == 20 + second.pending
    got = store.run_text(
        "MATCH (e:Expansion {generator: 'expander-1'})-[:EXPANDS]->(o:Opinion), "
        "(e)-[s:STYLED_ON]->(c:Comment)<-[m:MATCHED {rank: s.rank}]-(o) "
        "RETURN e.text AS text, o.text AS opinion, e.prompt_hash AS ph"
    )
    assert len(got) == 48
    assert all(r["text"].startswith("Honestly, ") and not r["text"].startswith('"') for r in got)
    assert {r["ph"] for r in got} == {client.ledger.records[0].prompt_hash}
    # the next run asks only for the 8 missing slots
    assert len(pending_slots(store, "expander-1")) == 8


def test_rerun_after_loss_is_served_from_the_response_cache(
    store, loaded, llm_server, tmp_path: Path
) -> None:
    llm_server.add_rule(match="Original argument:", reply="Honestly, this is the point.")
    cfg = llm_server.config(
        role="builder",
        model="cached-expander",
        cache=True,
        cache_path=tmp_path / "llm-cache.sqlite",
    )
    first = expand(store, LLMClient(cfg), limit=4)
    assert (first.written, first.cached, llm_server.calls) == (4, 0, 4)
    store.run_text("MATCH (e:Expansion {generator: 'cached-expander'}) DETACH DELETE e")
    again = expand(store, LLMClient(cfg), limit=4)
    assert (again.written, again.cached, llm_server.calls) == (4, 4, 4)  # no new HTTP call


def test_cli_reddit_import_for_unknown_topic_writes_nothing(store, loaded, tmp_path) -> None:
    from typer.testing import CliRunner

    from kg.cli.main import app
    from kg.store import _password

    dump = tmp_path / "other.jsonl"
    dump.write_text(
        '{"id": "z1", "author": "someone", "body": "a comment with enough words '
        'in it", "score": 3, "link_id": "t3_z", "topic": "Not a topic we have"}\n'
    )
    env = {
        "KG_NEO4J_URI": store.settings.bolt_uri,
        "KG_NEO4J_USER": store.settings.neo4j_user,
        "KG_NEO4J_PASSWORD": _password(store.settings),
    }
    before = store.node_counts()
    result = CliRunner().invoke(app, ["perspectra", "import-reddit", str(dump)], env=env)
    assert result.exit_code == 1
    out = " ".join(result.output.split())  # rich wraps long lines
    assert "not in the graph" in out and "Not a topic we have" in out
    assert store.node_counts() == before
