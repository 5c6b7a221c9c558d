"""`kg perspectra report --html` in a real headless Chromium: the task tables as computed in
Python, and per item the task input, the gold, the model's reply and its parse."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from browser import in_ci, missing, start_chromium
from typer.testing import CliRunner

from evaluation.perspectra.report import run_rows, tables
from evaluation.perspectra.run_store import TaskRunSpec, finish_run, start_run, store_answers
from evaluation.perspectra.scoring import parse_for
from kg.cli.main import app
from kg.queries.task_items import list_task_sets, load_items
from kg.store import _password

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "perspectra"
EVIL = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> maybe B?'


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    absent = missing()
    if absent:
        if in_ci():
            pytest.fail(
                f"CI must run the browser tests; missing: {', '.join(absent)} "
                "(scripts/install-browser.sh, pip install -e '.[test]')"
            )
        pytest.skip(
            f"no headless browser here (missing {', '.join(absent)}; install with "
            "scripts/install-browser.sh) and not CI"
        )
    d = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


@pytest.fixture(scope="module")
def page(store, tmp_path_factory):
    env = {
        "KG_NEO4J_URI": store.settings.bolt_uri,
        "KG_NEO4J_USER": store.settings.neo4j_user,
        "KG_NEO4J_PASSWORD": _password(store.settings),
    }
    runner = CliRunner()

    def cli(*args: str) -> str:
        res = runner.invoke(app, ["perspectra", *args], env=env)
        assert res.exit_code == 0, res.output
        return res.output

    cli("import", str(DEMO / "sample_release.json"))
    cli("build-tasks", "--n", "12", "--seed", "7", "--task", "t2")
    build = next(b["task_set"] for b in list_task_sets(store) if b["task"] == "t2")
    items = load_items(store, build)
    # a scripted model through the real answer store: right, wrong, and hostile/unparseable
    replies = [
        it.gold
        if it.index % 3 == 0
        else next(x for x in "ABCD" if x != it.gold)
        if it.index % 3 == 1
        else EVIL
        for it in items
    ]
    spec = TaskRunSpec(task="t2", build=build, model="scripted-html", strategy="llm")
    start_run(store, spec)
    store_answers(store, spec.uid, items, replies)
    finish_run(store, spec, items)
    out = tmp_path_factory.mktemp("html") / "perspectra.html"
    cli("report", "--run", spec.uid, "--out", str(out.parent / "tables"), "--html", str(out))
    return store, out, spec.uid, items, replies


def test_perspectra_tables_and_item_view(driver, page, tmp_path):
    from selenium.webdriver.support.ui import Select

    store, path, uid, items, replies = page
    driver.get(path.as_uri())
    assert driver.execute_script("return document.body.getAttribute('data-ready')") == "1"
    runs = [r["run"] for r in store.read("perspectra/runs", uids=[uid])]
    expected = tables(run_rows(store, runs))["t2"]
    shown = [
        c.text
        for c in driver.find_elements(
            "css selector", '[data-table="perspectra_t2"] tbody tr[data-row="0"] td'
        )
    ]
    assert shown == [expected.cell(expected.rows[0], c) for c in expected.columns]

    driver.find_element("id", "tab-items").click()
    rows = driver.find_elements("css selector", "#i-rows tr")
    assert len(rows) == len(items)
    parsed = [parse_for(it, r) for it, r in zip(items, replies, strict=True)]
    Select(driver.find_element("id", "f-outcome")).select_by_value("invalid")
    rows = driver.find_elements("css selector", "#i-rows tr")
    assert len(rows) == sum(not p.valid for p in parsed) > 0
    rows[0].click()
    detail = driver.find_element("id", "i-detail")
    item = next(i for i in items if i.uid == rows[0].get_attribute("data-item"))
    assert detail.find_element("css selector", ".task-input").text == item.text.strip()
    gold = detail.find_element("css selector", "li.gold")
    assert gold.get_attribute("data-letter") == item.gold
    assert item.options[ord(item.gold) - 65] in gold.text
    reply = detail.find_element("css selector", "pre.reply")
    assert driver.execute_script("return arguments[0].textContent", reply) == EVIL
    assert not reply.find_elements("css selector", "img, script")
    assert (
        "invalid: expected one option letter" in detail.find_element("css selector", ".parse").text
    )
    assert driver.execute_script("return window.__pwned") is None
    Select(driver.find_element("id", "f-outcome")).select_by_value("correct")
    rows = driver.find_elements("css selector", "#i-rows tr")
    assert len(rows) == sum(
        p.valid and p.value == it.gold for it, p in zip(items, parsed, strict=True)
    )
    rows[0].click()
    assert "parsed as" in driver.find_element("css selector", "#i-detail .parse").text
    p = tmp_path / "perspectra.png"
    driver.save_screenshot(str(p))
    assert p.stat().st_size > 10_000
    keep = ROOT / "out" / "screenshots"
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy(p, keep / p.name)
