"""Tasks, evaluation and baselines on a real Neo4j, the real LLM client over HTTP (local test
server) and the real MiniLM embedder; the CLI drives the import and the builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from construction.perspectra.tasks.builders import build_items
from evaluation.perspectra.baseline_eval import run_baseline
from evaluation.perspectra.llm_eval import evaluate
from evaluation.perspectra.report import run_rows, write_report
from kg.cli.main import app
from kg.embeddings import get_embedder
from kg.llm import LLMClient
from kg.queries.perspectra_corpus import load_corpus
from kg.queries.task_items import list_task_sets, load_items, resolve_task_set
from kg.store import _password
from kg.task_items import LETTERS

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parents[2] / "demo" / "perspectra"
N = 24


@pytest.fixture(scope="module")
def cli(store):
    env = {
        "KG_NEO4J_URI": store.settings.bolt_uri,
        "KG_NEO4J_USER": store.settings.neo4j_user,
        "KG_NEO4J_PASSWORD": _password(store.settings),
    }
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, ["perspectra", *args], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    return run


@pytest.fixture(scope="module")
def builds(store, cli) -> dict[str, str]:
    out = cli("import", str(DEMO / "sample_release.json"))
    assert "expansions │ 70" in " ".join(out.split())
    cli("build-tasks", "--n", str(N), "--seed", "7")
    cli("build-tasks", "--n", str(N), "--seed", "7")  # idempotent
    return {b["task"]: b["task_set"] for b in list_task_sets(store)}


def test_builds_stored_with_provenance(store, builds) -> None:
    assert sorted(builds) == ["t1", "t2", "t3"]
    assert {b["items"] for b in list_task_sets(store)} == {N}
    got = store.run_text(
        "MATCH (i:TaskItem {build: $b})-[inc:INCLUDES]->(e:Expansion)-[:EXPANDS]->(o:Opinion) "
        "RETURN i.index AS index, inc.pos AS pos, o.uid AS opinion, i.expansion_opinions AS eo "
        "ORDER BY index, pos",
        b=builds["t1"],
    )
    for r in got:
        assert r["eo"][r["pos"]] == r["opinion"]


def test_export_jsonl(builds, cli, tmp_path: Path) -> None:
    cli("export-tasks", "--task", "t2", "--out", str(tmp_path))
    lines = (tmp_path / f"{builds['t2']}.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert len(lines) == N and first["task"] == "t2" and len(first["options"]) == 4
    assert first["gold"] in "ABCD" and first["expansion_uids"]


def _scripted(items, task):
    """Reply plan per item index: 0 unparseable, 1 right as JSON, 2 right bare, 3 wrong."""

    def wrong(item):
        if task == "t1":
            return str(int(item.gold) + 1)
        if task == "t2":
            return next(x for x in LETTERS[: len(item.options)] if x != item.gold)
        return "con" if item.gold == "pro" else "pro"

    def reply(body):
        prompt = body["messages"][-1]["content"]
        # the item whose text and options the prompt shows (t2 items may share an expansion)
        item = next(
            i
            for i in items
            if i.text in prompt
            and all(f"{LETTERS[k]}. {o}" in prompt for k, o in enumerate(i.options))
        )
        key = {"t1": "count", "t2": "answer", "t3": "stance"}[task]
        value = int(item.gold) if task == "t1" else item.gold
        return [
            "I would say a few of them, maybe.",
            json.dumps({key: value}),
            item.gold,
            wrong(item),
        ][item.index % 4]

    return reply


@pytest.mark.parametrize("task", ["t1", "t2", "t3"])
def test_eval_over_http_strict_parsing_and_resume(store, builds, llm_server, task) -> None:
    items = load_items(store, builds[task])
    llm_server.add_rule(match="Reply with JSON only", reply=_scripted(items, task))
    client = LLMClient(llm_server.config(model=f"scripted-{task}"))
    out = evaluate(store, client, items, task, builds[task], chunk=10)
    assert (out.asked, out.failed, llm_server.calls) == (N, 0, N)
    s = out.scores.summary
    assert s["accuracy"] == pytest.approx(0.5)
    assert s["invalid"] == pytest.approx(0.25)  # unparseable replies: invalid, never guessed
    if task == "t1":
        assert s["over_split"] == pytest.approx(0.25) and s["under_count"] == 0
        assert s["nie"] == pytest.approx(
            sum(
                1
                if i.index % 4 in (1, 2)
                else (1 / (1 + 1 / int(i.gold)) if i.index % 4 == 3 else 0)
                for i in items
            )
            / N
        )
    run = store.run_text("MATCH (r:Run {uid: $u}) RETURN r {.*} AS r", u=out.spec.uid)[0]["r"]
    assert (run["status"], run["setting"], run["answered"], run["models"]) == (
        "done",
        task,
        N,
        [f"scripted-{task}"],
    )
    assert json.loads(run["metrics"])["accuracy"] == pytest.approx(0.5)
    assert run["tokens_in"] > 0 and "api_key" not in run["config"]
    answers = store.run_text(
        "MATCH (a:Answer)-[:IN_RUN]->(:Run {uid: $u}), (a)-[:FOR]->(i:TaskItem) "
        "RETURN i.index AS index, a.valid AS valid, a.correct AS correct",
        u=out.spec.uid,
    )
    assert len(answers) == N
    assert all(a["valid"] == (a["index"] % 4 != 0) for a in answers)
    again = evaluate(store, client, items, task, builds[task])
    assert (again.asked, again.resumed, llm_server.calls) == (0, N, N)  # nothing asked twice


def test_failed_calls_are_left_for_a_resume(store, builds, llm_server) -> None:
    items = load_items(store, builds["t3"])[:6]
    llm_server.add_rule(match="Reply with JSON only", status=500, times=2)
    llm_server.add_rule(match="Reply with JSON only", reply='{"stance": "pro"}')
    client = LLMClient(llm_server.config(model="flaky", max_retries=0, concurrency=1))
    out = evaluate(store, client, items, "t3", builds["t3"])
    assert (out.asked, out.failed) == (6, 2)
    run = store.run_text("MATCH (r:Run {uid: $u}) RETURN r.status AS s", u=out.spec.uid)
    assert run == [{"s": "partial"}]
    again = evaluate(store, client, items, "t3", builds["t3"])
    assert (again.asked, again.failed, again.resumed) == (2, 0, 4)


def test_baselines_and_report(store, builds, tmp_path: Path) -> None:
    emb = get_embedder()
    corpus = load_corpus(store)
    results = {}
    for task, build in builds.items():
        items = load_items(store, build)
        results[task] = run_baseline(
            store, task, build, items, corpus, emb.encode, emb.model_name, make_items=build_items
        )
    assert results["t1"].spec.model == "baseline:agglomerative"
    assert 0.05 <= results["t1"].config["threshold"] <= 1.2
    assert results["t1"].config["dev_items"] > 0
    # the demo expansions restate their opinion almost verbatim: similarity baselines do well
    assert results["t2"].scores.summary["accuracy"] >= 0.8
    assert results["t3"].scores.summary["accuracy"] >= 0.6
    assert all(r.scores.summary["invalid"] == 0 for r in results.values())
    runs = [r["run"] for r in store.read("perspectra/runs", uids=None)]
    rows = run_rows(store, runs)
    labels = [r["run"] for r in rows["t2"]]
    assert "baseline:most-similar" in labels and "scripted-t2" in labels
    paths = write_report(tmp_path, rows)
    names = {p.name for p in paths}
    assert {
        "perspectra_t1.csv",
        "perspectra_t2.md",
        "perspectra_t3.json",
        "perspectra_accuracy.png",
    } <= names
    md = (tmp_path / "perspectra_t1.md").read_text(encoding="utf-8")
    assert "baseline:agglomerative" in md and "NIE" in md and "[" in md  # CI brackets


def test_resolve_build_errors(store, builds) -> None:
    with pytest.raises(ValueError, match="no t1 task set 'nope'"):
        resolve_task_set(store, "t1", "nope")
    assert resolve_task_set(store, "t1", None) == builds["t1"]
