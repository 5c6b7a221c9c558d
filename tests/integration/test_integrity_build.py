"""Builds that fail loudly and never overwrite by surprise (issue 15), on the real Neo4j:
failed model calls stop the build (`partial`, non-zero exit), a rerun resumes them and gives
the clean build's benchmark; imported domains and changed chunks are refused with the choices;
two domain names give the same benchmark; `kg domain list|delete`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from build_replies import evidence_reply, facts_reply, relations_reply, summary_reply
from typer.testing import CliRunner

from construction.perspectivebench.exporter import question_lines
from construction.pipeline.config import BuildConfig
from construction.pipeline.llm_route import make_build_llm
from construction.pipeline.runner import BuildPlan, build_domain
from kg import domains
from kg.cli.main import app

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "demo" / "build"
FAILING = "peat releases"  # a phrase of one demo chunk


def question_reply(body):
    import re

    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    names = re.findall(r"^- topic_\d+ = (.*?):", user, re.M)
    return {
        "question": f"How is {names[0]} connected to {names[-1]} through its mechanism?",
        "theme": "Mechanism",
    }


def _script(server) -> None:
    server.add_rule(match="Extract single-fact sentences", reply=facts_reply)
    server.add_rule(match="Name the shared explanatory focus", reply=summary_reply)
    server.add_rule(match="Find every explanatory relation", reply=relations_reply)
    server.add_rule(match="Write one perspective-targeted question", reply=question_reply)
    server.add_rule(match="Select the focused evidence", reply=evidence_reply)


def _benchmark(store, domain: str) -> str:
    """The exported benchmark of a domain, with the domain's name (a word found in no text:
    names such as "clean" would also be replaced inside sentences) taken out."""
    lines = question_lines(store, domain)
    return json.dumps(lines, sort_keys=True).replace(domain, "<domain>")


def _small_chunks(tmp_path: Path, n: int = 12) -> Path:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps(json.loads((DEMO / "chunks.json").read_text())[:n]))
    return path


def test_failed_calls_stop_the_build_and_the_rerun_equals_a_clean_build(
    store, llm_server, tmp_path, monkeypatch
):
    chunks = _small_chunks(tmp_path)
    assert FAILING in chunks.read_text()
    failing = llm_server.add_rule(match=facts_request_with(FAILING), status=500)
    _script(llm_server)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    res = CliRunner().invoke(
        app,
        [
            "build",
            "zq_resumed",
            "--chunks",
            str(chunks),
            "--palette",
            str(DEMO / "palette.json"),
            "--model",
            "test-model",
            "--base-url",
            llm_server.base_url,
            "--no-cache",
        ],
        env={"COLUMNS": "400"},
    )
    assert res.exit_code == 2, res.output
    assert "partial: 1 item(s) of stage facts failed (call_failed 1)" in res.output
    run = store.run_text(
        "MATCH (r:Run {kind: 'build', domain: 'zq_resumed'}) RETURN r.status AS s,"
        " r.failed_items AS n, r.allow_partial AS p"
    )
    assert run == [{"s": "partial", "n": 1, "p": False}]  # stored in the one vocabulary
    assert (
        store.run_text("MATCH (c:Concept {domain: 'zq_resumed'}) RETURN count(c) AS n")[0]["n"] == 0
    )  # no later stage ran on the partial facts

    failing.times = 0  # the server recovers
    llm = make_build_llm(config=llm_server.config(role="builder"))
    again = build_domain(
        store, BuildPlan(config=BuildConfig(domain="zq_resumed"), chunk_paths=[chunks]), llm=llm
    )
    assert again.status == "done" and again.failed_items == 0
    facts = next(s for s in again.stages if s.stage == "facts")
    assert facts.resumed == facts.items - 1  # only the failed chunk was asked again

    clean = build_domain(
        store,
        BuildPlan(
            config=BuildConfig(domain="zq_clean"),
            chunk_paths=[chunks],
            palette_path=DEMO / "palette.json",
        ),
        llm=llm,
    )
    assert clean.status == "done" and clean.summary["questions"] > 0
    assert _benchmark(store, "zq_resumed") == _benchmark(store, "zq_clean")


def test_failed_question_calls_keep_the_clean_builds_question_ids(store, llm_server, tmp_path):
    """Issue 30 (3): ids were handed out as calls succeeded, so questions whose calls failed
    were renumbered on the rerun (40, 67, 93 -> 134, 135, 136). Now they are a function of a
    stable order: the rerun exports the clean build's file, ids included."""
    chunks = _small_chunks(tmp_path)
    asked: list[str] = []

    def fails_some(body) -> bool:  # every other question request fails, whatever the order
        text = " ".join(str(m.get("content")) for m in body.get("messages", []))
        if "Write one perspective-targeted question" not in text:
            return False
        key = text[-400:]
        if key not in asked:
            asked.append(key)
        return asked.index(key) % 2 == 0

    failing = llm_server.add_rule(match=fails_some, status=500)
    _script(llm_server)
    llm = make_build_llm(config=llm_server.config(role="builder", max_retries=0))
    cfg = BuildConfig(domain="zq_qfail")
    first = build_domain(
        store,
        BuildPlan(config=cfg, chunk_paths=[chunks], palette_path=DEMO / "palette.json"),
        llm=llm,
    )
    assert first.status == "partial" and first.stopped_after == "questions"
    failing.times = 0  # the server recovers
    again = build_domain(store, BuildPlan(config=cfg, chunk_paths=[chunks]), llm=llm)
    assert again.status == "done"
    clean = build_domain(
        store,
        BuildPlan(
            config=BuildConfig(domain="zq_qclean"),
            chunk_paths=[chunks],
            palette_path=DEMO / "palette.json",
        ),
        llm=llm,
    )
    assert clean.status == "done" and clean.summary["questions"] > 2

    def ids(domain: str) -> list[tuple[int, str]]:
        rows = store.run_text(
            "MATCH (q:Question {domain: $d})-[:ASKS]->(v:Perspective) "
            "RETURN q.id AS id, v.concept_keys AS k, v.focus AS f ORDER BY id",
            d=domain,
        )
        return [(r["id"], f"{r['k']}{r['f']}") for r in rows]

    assert ids("zq_qfail") == ids("zq_qclean")  # 0 renumbered ids
    assert _benchmark(store, "zq_qfail") == _benchmark(store, "zq_qclean")


def facts_request_with(phrase: str):
    """Match the facts request of the chunk holding `phrase` (and nothing else)."""

    def match(body) -> bool:
        text = " ".join(str(m.get("content")) for m in body.get("messages", []))
        return "Extract single-fact sentences" in text and phrase in text

    return match


def test_two_domain_names_give_the_same_benchmark(store, tmp_path):
    chunks = _small_chunks(tmp_path, 30)
    a = build_domain(
        store,
        BuildPlan(
            config=BuildConfig(domain="demo_a"),
            chunk_paths=[chunks],
            palette_path=DEMO / "palette.json",
        ),
    )
    b = build_domain(
        store,
        BuildPlan(
            config=BuildConfig(domain="demo_b"),
            chunk_paths=[chunks],
            palette_path=DEMO / "palette.json",
        ),
    )
    assert a.status == b.status == "done"
    assert a.summary == b.summary
    assert _benchmark(store, "demo_a") == _benchmark(store, "demo_b")


def test_build_into_an_imported_domain_is_refused_with_the_choices(store, shared_data):
    from construction.perspectivebench.importer import import_perspectivebench

    import_perspectivebench(store, [shared_data / "perspectivebench/sample.jsonl"])
    before = store.node_counts()
    physics = domains.one(store, "physics")
    assert physics.origin == "imported" and physics.questions > 0
    with pytest.raises(domains.DomainConflict) as e:
        build_domain(
            store,
            BuildPlan(config=BuildConfig(domain="physics"), chunk_paths=[DEMO / "chunks.json"]),
        )
    msg = str(e.value)
    assert f"{physics.imported_questions} imported question(s)" in msg
    assert "new domain name" in msg and "--replace --yes" in msg
    assert {k: v for k, v in store.node_counts().items() if k != "Lease"} == {
        k: v for k, v in before.items() if k != "Lease"
    }
    res = CliRunner().invoke(
        app,
        ["build", "physics", "--chunks", str(DEMO / "chunks.json"), "--replace"],
        env={"COLUMNS": "400"},
    )
    assert res.exit_code == 1 and "add --yes" in res.output
    listed = CliRunner().invoke(app, ["domain", "list", "--json"])
    assert listed.exit_code == 0
    origins = {d["name"]: d["origin"] for d in json.loads(listed.output)}
    assert origins["physics"] == "imported"


def test_changed_chunks_are_refused_and_replace_marks_the_runs(store, tmp_path):
    # Enough text for the offline builder's grounded draft to hold questions (an old run needs
    # one to reference).
    small = _small_chunks(tmp_path, 30)
    build_domain(
        store,
        BuildPlan(
            config=BuildConfig(domain="grow"),
            chunk_paths=[small],
            palette_path=DEMO / "palette.json",
        ),
    )
    again = build_domain(
        store, BuildPlan(config=BuildConfig(domain="grow"), chunk_paths=[small])
    )  # a rerun
    assert again.status == "done" and again.summary["questions"] > 0, again.summary
    store.run_text("""MATCH (q:Question {domain: 'grow'}) WITH q LIMIT 1
                      MERGE (r:Run {uid: 'old-run'}) SET r.kind = 'eval', r.status = 'completed'
                      MERGE (a:Answer {uid: 'old-answer'}) MERGE (a)-[:FOR]->(q)
                      MERGE (a)-[:IN_RUN]->(r)""")
    (tmp_path / "more").mkdir()
    more = tmp_path / "more" / "chunks.json"
    grown = json.loads(small.read_text())
    grown += [
        {**grown[i], "id": f"{grown[i]['id']}-appendix", "text": grown[i]["text"] + " (appendix)"}
        for i in (0, 1)
    ]
    more.write_text(json.dumps(grown))
    with pytest.raises(domains.DomainConflict, match="add 2 new one"):
        build_domain(store, BuildPlan(config=BuildConfig(domain="grow"), chunk_paths=[more]))
    result = build_domain(
        store,
        BuildPlan(config=BuildConfig(domain="grow"), chunk_paths=[more], replace=True, yes=True),
    )
    assert result.status == "done" and result.summary["chunks"] == 32
    marked = store.run_text("MATCH (r:Run {uid: 'old-run'}) RETURN r.deleted_domains AS d")
    assert marked == [{"d": ["grow"]}]
    res = CliRunner().invoke(app, ["domain", "delete", "grow"], env={"COLUMNS": "400"})
    assert res.exit_code == 1 and "--yes" in res.output
    res = CliRunner().invoke(app, ["domain", "delete", "grow", "--yes"])
    assert res.exit_code == 0, res.output
    assert not domains.one(store, "grow").exists
    assert store.run_text("MATCH (r:Run {uid: 'old-run'}) RETURN count(r) AS n")[0]["n"] == 1


def _questions(store, domain: str) -> list[dict]:
    """Every question of a domain with what a stored run depends on: uid, id, text, its paths
    (uids, target or distractor) and its evidence facts."""
    return store.run_text(
        """MATCH (q:Question {domain: $d})
           CALL (q) {
             MATCH (q)-[r:TARGET|DISTRACTOR]->(p:Path)
             WITH r, p ORDER BY r.pos
             RETURN collect([type(r), r.pos, p.uid, p.signature]) AS paths
           }
           CALL (q) {
             MATCH (q)-[e:EVIDENCE]->(f:Fact)
             WITH e, f ORDER BY e.rank
             RETURN collect([e.rank, f.uid, f.text]) AS evidence
           }
           RETURN q.uid AS uid, q.id AS id, q.text AS text, paths, evidence ORDER BY q.id""",
        d=domain,
    )


def _report_files(out: Path) -> dict[str, str | None]:
    """The report's tables by file name (figures by name only: their bytes are a renderer's)."""
    return {
        p.name: None if p.suffix == ".png" else p.read_text(encoding="utf-8")
        for p in sorted(out.iterdir())
        if p.is_file()
    }


def test_extend_adds_new_questions_and_keeps_old_ones_and_their_run(
    store, llm_server, tmp_path, monkeypatch
):
    _script(llm_server)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    model = ["--model", "test-model", "--base-url", llm_server.base_url]
    first = _small_chunks(tmp_path, 12)
    (tmp_path / "all").mkdir()
    grown = tmp_path / "all" / "chunks.json"
    grown.write_text(json.dumps(json.loads((DEMO / "chunks.json").read_text())[:18]))
    runner = CliRunner()
    env = {"COLUMNS": "400"}
    res = runner.invoke(
        app,
        ["build", "zq_ext", "--chunks", str(first), "--palette", str(DEMO / "palette.json")]
        + model,
        env=env,
    )
    assert res.exit_code == 0, res.output
    old = _questions(store, "zq_ext")
    assert old, "the first build holds questions"
    # an eval run on the first build's questions (offline responder and judge), reported
    res = runner.invoke(
        app,
        [
            "eval",
            "run",
            "--responder",
            "cover-all",
            "--setting",
            "oracle",
            "--run-id",
            "zq-ext-old",
            "--domain",
            "zq_ext",
        ],
        env=env,
    )
    assert res.exit_code == 0, res.output
    before_out, after_out = tmp_path / "before", tmp_path / "after"
    res = runner.invoke(app, ["eval", "report", "zq-ext-old", "--out", str(before_out)], env=env)
    assert res.exit_code == 0, res.output
    counts = store.node_counts()

    # more chunks without a choice: refused, naming the three choices, nothing written
    res = runner.invoke(app, ["build", "zq_ext", "--chunks", str(grown)] + model, env=env)
    assert res.exit_code != 0
    flat = " ".join(res.output.split())
    assert "add 6 new one(s)" in flat
    for choice in ("new domain name", "--extend", "--replace --yes"):
        assert choice in flat, flat
    assert {k: v for k, v in store.node_counts().items() if k != "Lease"} == {
        k: v for k, v in counts.items() if k != "Lease"
    }

    res = runner.invoke(
        app, ["build", "zq_ext", "--chunks", str(grown), "--extend"] + model, env=env
    )
    assert res.exit_code == 0, res.output
    after = _questions(store, "zq_ext")
    kept = [q for q in after if q["uid"] in {o["uid"] for o in old}]
    assert kept == old  # same uids, ids, texts, paths and evidence
    new = [q for q in after if q["uid"] not in {o["uid"] for o in old}]
    assert new, "the extension adds questions"
    assert min(q["id"] for q in new) > max(q["id"] for q in old)
    for q in new:  # complete questions, on paths of their own generation
        kinds = {kind for kind, *_ in q["paths"]}
        assert kinds == {"TARGET", "DISTRACTOR"}
        assert not {p[2] for p in q["paths"]} & {p[2] for o in old for p in o["paths"]}
    assert domains.one(store, "zq_ext").generation == 1
    builds = store.run_text(
        "MATCH (r:Run {kind: 'build', domain: 'zq_ext'}) RETURN r.generation AS g ORDER BY g"
    )
    assert [b["g"] for b in builds][0] == 0 and builds[-1]["g"] == 1  # each pass's Run says which
    # the old run is reported exactly as before
    res = runner.invoke(app, ["eval", "report", "zq-ext-old", "--out", str(after_out)], env=env)
    assert res.exit_code == 0, res.output
    assert _report_files(after_out) == _report_files(before_out)

    # a rerun of the extension resumes it: nothing new, no third generation
    res = runner.invoke(
        app, ["build", "zq_ext", "--chunks", str(grown), "--extend"] + model, env=env
    )
    assert res.exit_code == 0, res.output
    assert _questions(store, "zq_ext") == after
    assert domains.one(store, "zq_ext").generation == 1


def test_a_killed_build_is_listed_interrupted_not_running(store):
    # what a `kill -9`ed build leaves: its Run still says running, and no lease is held
    store.run_text(
        "MERGE (d:Domain {name: 'zq_killed'}) SET d.built = true "
        "MERGE (r:Run {uid: 'zq-killed-build'}) SET r.kind = 'build', r.domain = 'zq_killed',"
        " r.status = 'running', r.started_at = '2026-01-01T00:00:00+00:00'"
    )
    listed = CliRunner().invoke(app, ["domain", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    row = next(d for d in json.loads(listed.output) if d["name"] == "zq_killed")
    assert row["last_build"]["status"] == "interrupted"
    from kg import leases

    with leases.hold(store, "build:zq_killed", "zq-killed-build", "build"):
        listed = CliRunner().invoke(app, ["domain", "list", "--json"])
        row = next(d for d in json.loads(listed.output) if d["name"] == "zq_killed")
        assert row["last_build"]["status"] == "running"  # its process is alive
    assert domains.delete(store, "zq_killed")["nodes_deleted"] == 0
