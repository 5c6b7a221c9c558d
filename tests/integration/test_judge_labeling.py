"""The human labeling loop end to end on a real Neo4j and in headless Chromium: a real offline
eval run -> `kg judge sample` -> `kg judge annotate` -> labels by click and by key, saved from
the page -> `kg judge agreement` -> `kg judge validate` on the saved and merged files -> the
report names that gold and its kind. Bad task and label files are refused and store nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import in_ci, missing, start_chromium
from cli_runs import import_demo_sample, point_at, run

from evaluation.judges.trust import judge_trusts
from evaluation.labeling.task import load_task
from evaluation.models import Setting
from evaluation.runs.runner import execute
from evaluation.runs.spec import RunSpec

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "judge"
RUN = "label-cover"


@pytest.fixture(scope="module")
def kg(store):
    """`kg ...` against the test server, with the demo sample imported and one offline run."""
    mp = pytest.MonkeyPatch()
    point_at(store, mp)
    import_demo_sample()
    summary = execute(
        store,
        RunSpec(
            kind="eval",
            responder="cover-all",
            judge="edge-evidence",
            setting=Setting.oracle,
            run_id=RUN,
        ),
    )
    assert summary.status == "done" and summary.completed == 6
    yield run
    mp.undo()


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    absent = missing()
    if absent:
        if in_ci():
            pytest.fail(f"CI must run the browser tests; missing: {', '.join(absent)}")
        pytest.skip(f"no headless browser here (missing {', '.join(absent)}) and not CI")
    d = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


def _task(kg, tmp_path: Path, n: int = 4, seed: int = 3) -> Path:
    task = tmp_path / "task.jsonl"
    out = kg("judge", "sample", RUN, "--n", str(n), "--seed", str(seed), "--out", str(task))
    assert f"{n} answers from" in out.output
    return task


def test_sample_is_stratified_blind_and_seeded(kg, store, tmp_path):
    task = _task(kg, tmp_path, n=6)
    items = load_task(task)
    assert len(items) == 6 and len({i.answer_id for i in items}) == 6
    assert {i.hop for i in items} == {1, 2, 3}  # the demo's hops, each one a stratum
    # the cover-all baseline writes constructed answers (not a model's): the task says so
    assert all(i.setting == "oracle" and i.kind == "constructed" for i in items)
    assert all(i.paths and all(p.edges for p in i.paths) for i in items)
    text = task.read_text()
    assert "verdict" not in text and "present" not in text  # blind
    again = tmp_path / "again.jsonl"
    kg("judge", "sample", RUN, "--n", "6", "--seed", "3", "--out", str(again))
    other = tmp_path / "other.jsonl"
    kg("judge", "sample", RUN, "--n", "6", "--seed", "3", "--out", str(other))
    assert again.read_text() == other.read_text()  # seeded: the same sample


def _capture_save(driver) -> str:
    """Click the page's save button and return the Blob it would download."""
    driver.execute_script(
        """window.__saved = null;
        var orig = URL.createObjectURL;
        URL.createObjectURL = function (blob) {
          blob.text().then(function (t) { window.__saved = t; });
          return orig.call(URL, blob);
        };"""
    )
    driver.find_element("id", "save").click()
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.__saved"))


def test_label_in_the_browser_save_and_validate(kg, store, driver, tmp_path):
    task = _task(kg, tmp_path)
    items = load_task(task)
    page = tmp_path / "page.html"
    kg("judge", "annotate", str(task), "--out", str(page))
    driver.get(page.as_uri())
    assert driver.execute_script("return document.body.getAttribute('data-ready')") == "1"
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe  # the CSP let the page's own script and style run
    assert driver.find_element("id", "answer").text == items[0].answer.strip()
    assert "0 of 4 answers labeled" in driver.find_element("id", "progress").text
    body = driver.find_element("tag name", "body")
    from selenium.webdriver.common.keys import Keys

    expected: dict[str, dict[str, bool]] = {}
    for n, item in enumerate(items):
        labels = {p.name: (i % 2 == 0) for i, p in enumerate(item.paths)}
        if n % 2 == 0:  # by clicking: the present/absent button of every path
            for name, value in labels.items():
                driver.find_element(
                    "css selector",
                    f'[data-path="{name}"] [data-choice="{"present" if value else "absent"}"]',
                ).click()
            # an edge mark, to help (saved, not required)
            driver.find_element(
                "css selector", '[data-path="path_0"] [data-edge="0"] [data-edge-choice="stated"]'
            ).click()
        else:  # by keys: y / n label the selected path and move to the next
            for name in [p.name for p in item.paths]:
                body.send_keys("y" if labels[name] else "n")
        states = {
            e.get_attribute("data-path"): e.get_attribute("data-label")
            for e in driver.find_elements("css selector", ".path")
        }
        assert states == {k: str(v).lower() for k, v in labels.items()}
        expected[item.answer_id] = labels
        body.send_keys(Keys.ARROW_RIGHT)
    progress = driver.find_element("id", "progress")
    assert progress.get_attribute("data-done") == "4"
    assert "4 of 4 answers labeled" in progress.text
    saved = _capture_save(driver)
    rows = [json.loads(x) for x in saved.splitlines() if x.strip()]
    assert {r["answer_id"]: r["present"] for r in rows} == expected
    assert all(r["kind"] == "constructed" and r["setting"] == "oracle" for r in rows)
    assert "edges" in rows[0] and rows[0]["edges"]["path_0"][0] is True
    # labels survive a reload (kept in the page's storage)
    driver.refresh()
    assert "4 of 4 answers labeled" in driver.find_element("id", "progress").text
    gold = tmp_path / "labels-a.jsonl"
    gold.write_text(saved, encoding="utf-8")
    out = json.loads(
        kg(
            "judge", "validate", "--gold", str(gold), "--judge", "edge-evidence", "--format", "json"
        ).stdout
    )
    assert out["gold_kind"] == "constructed" and out["overall"]["answers"] == 4
    assert [g["group"] for g in out["by_kind"]] == ["constructed"]
    assert out["profiles"][0]["settings"] == ["oracle"]
    # a second and third annotator, then the merged gold
    b_rows = [
        dict(r, present={k: not v for k, v in r["present"].items()}) if i == 0 else r
        for i, r in enumerate(rows)
    ]
    gold_b = tmp_path / "labels-b.jsonl"
    gold_b.write_text("".join(json.dumps(r) + "\n" for r in b_rows))
    gold_c = tmp_path / "labels-c.jsonl"
    gold_c.write_text(saved)
    merged = tmp_path / "merged.jsonl"
    res = kg(
        "judge",
        "agreement",
        str(gold),
        str(gold_b),
        str(gold_c),
        "--merge",
        "majority",
        "--out",
        str(merged),
        "--format",
        "json",
    )
    ag = json.loads(res.stdout.split("merged gold")[0])
    assert len(ag["pairs"]) == 3 and ag["pairs"][1]["kappa"] == pytest.approx(1.0)
    assert ag["fleiss"] is not None and ag["fleiss"] < 1
    merged_rows = [json.loads(x) for x in merged.read_text().splitlines()]
    assert {r["answer_id"]: r["present"] for r in merged_rows} == expected
    assert all(len(r["annotators"]) == 3 for r in merged_rows)
    res = kg("judge", "validate", "--gold", str(merged), "--judge", "edge-evidence")
    assert "on constructed answers (merged.jsonl, sha256" in " ".join(
        res.output.split()
    )  # no path in it
    trust = judge_trusts(store, [out["judge"]])[out["judge"]]
    assert trust.constructed is not None and trust.constructed.gold == "merged.jsonl"
    # the same labels declared natural (as a model's answers would be): the headline
    natural = tmp_path / "natural.jsonl"
    natural.write_text("".join(json.dumps(dict(r, kind="natural")) + "\n" for r in merged_rows))
    kg("judge", "validate", "--gold", str(natural), "--judge", "edge-evidence")
    trust = judge_trusts(store, [out["judge"]])[out["judge"]]
    assert trust.natural is not None and trust.natural.gold == "natural.jsonl"
    assert trust.natural.settings == ["oracle"]


def test_report_names_the_gold_and_warns(kg, store, tmp_path):
    """After validations on constructed (demo) and natural (labeled) gold, the report's notes
    put the natural kappa first, name both files, and never call a kappa below 0.6 validated."""
    kg(
        "judge",
        "validate",
        "--gold",
        str(ROOT / "demo/judge/gold.jsonl"),
        "--judge",
        "edge-evidence",
    )
    from evaluation.reporting.report import build_report

    rep = build_report(store, [RUN], out_dir=None, plots=False)
    notes = rep.tables[f"{RUN}_by_hop"].notes
    line = next(n for n in notes if n.startswith("judge "))
    trust = rep.trusts[RUN]
    assert trust.constructed is not None and "gold.jsonl" in line
    row = rep.tables["overall"].rows[0]
    assert row["judge kappa (constructed)"] == round(trust.constructed.kappa, 2)
    if trust.natural is not None:  # stored by the browser test of this module
        assert line.index("natural answers") < line.index("constructed answers")
        assert (row["judge trust"] == "validated") == (trust.natural.kappa >= 0.6)


def _flat(text: str) -> str:
    """Console output without the line breaks rich inserts (even inside long paths)."""
    return "".join(text.split())


def test_bad_task_and_label_files_are_refused_and_store_nothing(kg, store, tmp_path):
    page = tmp_path / "page.html"
    res = kg("judge", "annotate", str(DATA / "task_bad.jsonl"), "--out", str(page), code=1)
    problem = f"{DATA / 'task_bad.jsonl'}:3:answer_id: duplicate of line 1"
    assert _flat(problem) in _flat(res.output)
    assert not page.exists()
    merged = tmp_path / "merged.jsonl"
    bad = DATA / "labels_bad.jsonl"
    res = kg(
        "judge",
        "agreement",
        str(bad),
        str(bad),
        "--merge",
        "majority",
        "--out",
        str(merged),
        code=1,
    )
    assert _flat(f"{bad}:1:present.path_0: label must be true or false") in _flat(res.output)
    assert not merged.exists()
    before = store.query("eval/judge_validations_all")
    res = kg("judge", "validate", "--gold", str(bad), "--judge", "edge-evidence", code=1)
    assert _flat(f"{bad}:1:present.path_0:") in _flat(res.output)
    declared = tmp_path / "declared.jsonl"
    lines = (ROOT / "demo/judge/gold.jsonl").read_text().splitlines()
    declared.write_text(json.dumps(dict(json.loads(lines[0]), kind="constructed")) + "\n")
    res = kg("judge", "validate", "--gold", str(declared), "--gold-kind", "natural", code=1)
    problem = f"{declared}:1:kind: declared constructed, but --gold-kind natural was given"
    assert _flat(problem) in _flat(res.output)
    assert store.query("eval/judge_validations_all") == before
